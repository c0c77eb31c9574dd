// The lab's stand-in for the cfn-response module Lambda gives code written inline in a template
// (Code.ZipFile): send() PUTs the custom resource's response to the request's ResponseURL, as
// the CloudFormation user guide documents the module, then ends the invocation through
// context.done where the runtime still has it.
const https = require("node:https");

exports.SUCCESS = "SUCCESS";
exports.FAILED = "FAILED";

exports.send = (event, context, responseStatus, responseData, physicalResourceId, noEcho) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({
      Status: responseStatus,
      Reason: `See the details in CloudWatch Log Stream: ${context.logStreamName}`,
      PhysicalResourceId: physicalResourceId || context.logStreamName,
      StackId: event.StackId,
      RequestId: event.RequestId,
      LogicalResourceId: event.LogicalResourceId,
      NoEcho: noEcho || false,
      Data: responseData,
    });
    const url = new URL(event.ResponseURL);
    const done = (error) => (typeof context.done === "function" ? context.done(error) : undefined);
    const request = https.request(
      {
        hostname: url.hostname,
        port: 443,
        path: url.pathname + url.search,
        method: "PUT",
        headers: { "content-type": "", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        console.log(`Status code: ${response.statusCode}`);
        response.resume();
        resolve(done());
      },
    );
    request.on("error", (error) => {
      console.log(`send(..) failed executing https.request(..): ${error}`);
      reject(done(error));
    });
    request.end(body);
  });
