// The template's HTTP API on 127.0.0.1, as API Gateway serves it (a local `sam local start-api`
// without Docker): each GET route invokes its function with a payload format 2.0 event and maps
// the response back. Concurrent requests scale out like Lambda (LambdaService). A function with
// AutoPublishAlias is invoked through its alias, as SAM points the integration at the alias: its
// provisioned environments serve first.
// Sources: SAM CLI (local_apigw_service.py) and the developer guide sample event-v2.json.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { errorMessage } from "../core/errors.mts";
import { closeServer, listenOnLoopback } from "../core/loopback.mts";
import type { TemplateFunction } from "../core/template.mts";
import { ACCOUNT_ID, type LambdaService, TooManyRequests } from "./emulator/lambda-service.mts";
import { readBody } from "./emulator/runtime-api.mts";

const API_ID = "warpstartlab";
const MAX_BODY_BYTES = 10 * 1024 * 1024;

type Response = { status: number; headers: Record<string, string | string[]>; body: Buffer };

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: Buffer.from(JSON.stringify(body)),
});

/** The payload format 2.0 event API Gateway sends for a request. */
function httpApiEvent(req: IncomingMessage, body: Buffer, routeKey: string, requestId: string): Record<string, unknown> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const headers: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (name === "cookie") continue;
    headers[name] = headers[name] === undefined ? req.rawHeaders[i + 1]! : `${headers[name]},${req.rawHeaders[i + 1]}`;
  }
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = key in query ? `${query[key]},${value}` : value;
  const cookies = req.headers.cookie?.split(/;\s*/).filter(Boolean);
  const now = new Date();
  const textual = /^(text\/|application\/(json|xml|x-www-form-urlencoded))/.test(req.headers["content-type"] ?? "");
  return {
    version: "2.0",
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies?.length ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: API_ID,
      domainName: req.headers.host ?? "127.0.0.1",
      domainPrefix: API_ID,
      http: {
        method: req.method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
        userAgent: req.headers["user-agent"] ?? "",
      },
      requestId,
      routeKey,
      stage: "$default",
      time: now.toUTCString().replace(/^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/, "$1/$2/$3:$4 +0000"),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: textual ? body.toString("utf8") : body.toString("base64"), isBase64Encoded: !textual } : { isBase64Encoded: false }),
  };
}

/** A function's answer as API Gateway maps a payload format 2.0 response. */
export function mapResponse(payload: Buffer, functionError: string | undefined): Response {
  if (functionError) return json(500, { message: "Internal server error" });
  let value: unknown;
  try {
    value = JSON.parse(payload.toString("utf8"));
  } catch {
    return json(502, { message: "Internal server error" });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || !("statusCode" in value)) {
    // Without statusCode API Gateway infers the response: 200 and the value as JSON.
    return { status: 200, headers: { "content-type": "application/json" }, body: Buffer.from(typeof value === "string" ? value : JSON.stringify(value)) };
  }
  const {
    statusCode,
    headers = {},
    cookies = [],
    body = "",
    isBase64Encoded,
  } = value as {
    statusCode: unknown;
    headers?: Record<string, string>;
    cookies?: string[];
    body?: unknown;
    isBase64Encoded?: boolean;
  };
  if (!Number.isInteger(statusCode) || (statusCode as number) < 100 || (statusCode as number) > 599) return json(502, { message: "Internal server error" });
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return {
    status: statusCode as number,
    headers: { "content-type": "application/json", ...headers, ...(cookies.length ? { "set-cookie": cookies } : {}) },
    body: isBase64Encoded ? Buffer.from(text, "base64") : Buffer.from(text),
  };
}

export class HttpApi {
  private readonly server: Server;
  private readonly routes: Map<string, string>;
  private readonly lambda: LambdaService;

  constructor(lambda: LambdaService, functions: TemplateFunction[]) {
    this.lambda = lambda;
    // Each route's function, as its integration names it: name:alias with AutoPublishAlias.
    this.routes = new Map(functions.flatMap((fn) => (fn.httpPath ? [[`GET ${fn.httpPath}`, fn.alias ? `${fn.logicalId}:${fn.alias}` : fn.logicalId]] : [])));
    this.server = createServer((req, res) => {
      this.handle(req).then(
        (response) => send(res, response),
        (error: unknown) => send(res, json(500, { message: "Internal server error", detail: errorMessage(error) })),
      );
    });
    this.server.keepAliveTimeout = 30_000;
  }

  async listen(port = 0): Promise<string> {
    return `http://127.0.0.1:${await listenOnLoopback(this.server, port)}`;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async handle(req: IncomingMessage): Promise<Response> {
    const routeKey = `${req.method} ${new URL(req.url ?? "/", "http://localhost").pathname}`;
    const functionName = this.routes.get(routeKey);
    const requestId = randomBytes(10).toString("base64").replace(/[+/=]/g, "");
    if (!functionName) return json(404, { message: "Not Found" }, { "apigw-requestid": requestId });
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === null) return json(413, { message: "Request Entity Too Large" });
    try {
      const result = await this.lambda.invoke(functionName, Buffer.from(JSON.stringify(httpApiEvent(req, body, routeKey, requestId))));
      const response = mapResponse(result.payload, result.functionError);
      response.headers["apigw-requestid"] = requestId;
      return response;
    } catch (error) {
      if (error instanceof TooManyRequests)
        return json(429, { message: "Too Many Requests" }, { "x-amzn-errortype": "TooManyRequestsException", "apigw-requestid": requestId });
      throw error;
    }
  }
}

function send(res: ServerResponse, response: Response): void {
  res.writeHead(response.status, response.headers).end(response.body);
}
