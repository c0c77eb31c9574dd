// The emptiest handler: what a cold start costs before any code of the function's own, the
// runtime's share alone. lambda-perf measures a hello world on Lambda for every runtime, which
// makes this the calibration point between the lab and Lambda (docs/runtime-matrix.md).
// It says only whether it started cold and how, which the load test counts.
let coldstart = true;

export const handler = async () => {
  const body = JSON.stringify({ coldstart, initializationType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE });
  coldstart = false;
  return { statusCode: 200, body };
};
