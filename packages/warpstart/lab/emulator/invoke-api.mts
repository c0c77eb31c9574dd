// The Lambda API on 127.0.0.1, wire-compatible with @aws-sdk/client-lambda: Invoke,
// ListFunctions, GetFunction, GetFunctionConfiguration, UpdateFunctionConfiguration (what the bench and the
// SDK's waitUntilFunctionUpdatedV2 use), GetProvisionedConcurrencyConfig, each with a Qualifier
// ($LATEST, the alias, version 1: LambdaService.target) where Lambda takes one. Errors carry x-amzn-ErrorType like the real service.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { errorMessage } from "../../core/errors.mts";
import { logTail } from "../../core/lambda-logs.mts";
import { closeServer, listenOnLoopback } from "../../core/loopback.mts";
import {
  InvalidParameterValue,
  type LambdaService,
  ProvisionedConcurrencyConfigNotFound,
  ResourceConflict,
  ResourceNotFound,
  TooManyRequests,
} from "./lambda-service.mts";
import { readBody } from "./runtime-api.mts";

const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const FUNCTION_ROUTE = /^\/2015-03-31\/functions\/([^/]+)(\/invocations|\/configuration)?$/;
const LIST_ROUTE = /^\/2015-03-31\/functions\/?$/;
const PROVISIONED_ROUTE = /^\/2019-09-30\/functions\/([^/]+)\/provisioned-concurrency$/;

export class InvokeApi {
  private readonly server: Server;
  private readonly lambda: LambdaService;

  constructor(lambda: LambdaService) {
    this.lambda = lambda;
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => sendError(res, 500, "ServiceException", errorMessage(error)));
    });
  }

  async listen(port = 0): Promise<string> {
    return `http://127.0.0.1:${await listenOnLoopback(this.server, port)}`;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    // ListFunctions (the AWS CLI and boto3 call it): every function in one page, no marker.
    if (req.method === "GET" && LIST_ROUTE.test(url.pathname))
      return sendJson(res, 200, { Functions: this.lambda.functionNames.map((name) => this.lambda.configuration(name)) });
    const provisioned = PROVISIONED_ROUTE.exec(url.pathname);
    const match = provisioned ?? FUNCTION_ROUTE.exec(url.pathname);
    if (!match) return sendError(res, 404, "UnknownOperationException", `Unknown operation ${req.method} ${url.pathname}`);
    const name = decodeURIComponent(match[1]!);
    const qualifier = url.searchParams.get("Qualifier") ?? undefined;
    const operation = provisioned ? `${req.method} provisioned-concurrency` : `${req.method} ${match[2] ?? ""}`;
    try {
      switch (operation) {
        case "GET provisioned-concurrency":
          return sendJson(res, 200, this.lambda.provisionedConcurrencyConfig(name, qualifier));
        case "POST /invocations":
          return await this.invoke(req, res, name, qualifier);
        case "GET /configuration":
          return sendJson(res, 200, this.lambda.configuration(name, qualifier));
        case "GET ":
          return sendJson(res, 200, { Configuration: this.lambda.configuration(name, qualifier), Code: { RepositoryType: "S3" }, Tags: {} });
        // UpdateFunctionConfiguration takes no Qualifier: it changes $LATEST.
        case "PUT /configuration": {
          const body = await readBody(req, MAX_PAYLOAD_BYTES);
          const change = parseJsonBody(body);
          if (change === undefined) return sendError(res, 400, "InvalidRequestContentException", "Could not parse request body into json");
          return sendJson(res, 200, await this.lambda.updateConfiguration(name, change));
        }
        default:
          return sendError(res, 404, "UnknownOperationException", `Unknown operation ${req.method} ${url.pathname}`);
      }
    } catch (error) {
      if (error instanceof ResourceNotFound) return sendError(res, 404, "ResourceNotFoundException", error.message);
      if (error instanceof ProvisionedConcurrencyConfigNotFound) return sendError(res, 404, "ProvisionedConcurrencyConfigNotFoundException", error.message);
      if (error instanceof ResourceConflict) return sendError(res, 409, "ResourceConflictException", error.message);
      if (error instanceof InvalidParameterValue) return sendError(res, 400, "InvalidParameterValueException", error.message);
      if (error instanceof TooManyRequests) {
        res.setHeader("retry-after", "1");
        return sendError(res, 429, "TooManyRequestsException", error.message, { Reason: "ConcurrentInvocationLimitExceeded" });
      }
      throw error;
    }
  }

  private async invoke(req: IncomingMessage, res: ServerResponse, name: string, qualifier: string | undefined): Promise<void> {
    const payload = await readBody(req, MAX_PAYLOAD_BYTES);
    if (payload === null)
      return sendError(res, 413, "RequestTooLargeException", `Request must be smaller than ${MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`);
    if (payload.length > 0 && parseJsonBody(payload) === undefined) {
      return sendError(res, 400, "InvalidRequestContentException", "Could not parse request body into json: the payload is not valid JSON");
    }
    const invocationType = header(req, "x-amz-invocation-type") ?? "RequestResponse";
    const logType = header(req, "x-amz-log-type") ?? "None";
    this.lambda.configuration(name, qualifier); // 404 before anything runs
    if (invocationType === "DryRun") return void res.writeHead(204).end();
    const event = payload.length > 0 ? payload : Buffer.from("{}");
    if (invocationType === "Event") {
      void this.lambda.invoke(name, event, qualifier).catch(() => {});
      return void res.writeHead(202, { "x-amzn-requestid": crypto.randomUUID() }).end();
    }
    if (invocationType !== "RequestResponse") return sendError(res, 400, "InvalidParameterValueException", `Unsupported InvocationType: ${invocationType}`);

    const result = await this.lambda.invoke(name, event, qualifier);
    const headers: Record<string, string> = { "content-type": "application/json", "x-amz-executed-version": result.executedVersion };
    if (result.functionError) headers["x-amz-function-error"] = result.functionError;
    if (logType === "Tail") headers["x-amz-log-result"] = Buffer.from(logTail(result.log), "utf8").toString("base64");
    res.writeHead(200, headers).end(result.payload);
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

function parseJsonBody(body: Buffer | null): Record<string, never> | undefined {
  if (!body) return undefined;
  try {
    return body.length ? JSON.parse(body.toString("utf8")) : {};
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Lambda's error shape: the code in x-amzn-ErrorType, {Type, Message} in the body. */
function sendError(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) return void res.destroy();
  res
    .writeHead(status, { "content-type": "application/json", "x-amzn-errortype": code })
    .end(JSON.stringify({ Type: status >= 500 ? "Service" : "User", Message: message, message, ...extra }));
}
