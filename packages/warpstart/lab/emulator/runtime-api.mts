// The Lambda Runtime API (2018-06-01) for one execution environment, as the runtime interface
// client speaks it: long-polled `next`, per-invocation response/error, init error.
// Sources: the Lambda developer guide (runtimes-api.md) and aws-lambda-runtime-interface-emulator (internal/lambda/rapid).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const PREFIX = "/2018-06-01/runtime";
const MAX_RESPONSE_BYTES = 6 * 1024 * 1024;
const ERROR_TYPE = /^(Runtime|Function)\.[A-Z][a-zA-Z]+$/;

export interface Invocation {
  requestId: string;
  payload: Buffer;
  deadlineMs: number;
  functionArn: string;
  traceId: string;
}

/** What the runtime reported for an invocation or for its init. */
export type RuntimeReport = { kind: "response"; body: Buffer } | { kind: "error"; errorType: string | null; body: Buffer };

export class RuntimeApi {
  private readonly server: Server;
  private waitingNext: ServerResponse | null = null;
  private queued: Invocation | null = null;
  private current: { invocation: Invocation; settle: (report: RuntimeReport) => void } | null = null;
  /** Called on every `next` request: the runtime is ready for an event (the first one ends INIT). */
  onNext: () => void = () => {};
  /** Called when the runtime waits in `next` with no event to hand it: the moment Lambda freezes. */
  onIdle: () => void = () => {};
  /** Set when the runtime posts to /runtime/init/error. */
  initError: Extract<RuntimeReport, { kind: "error" }> | null = null;

  constructor() {
    // A request the runtime aborts mid-body ends here, not as an unhandled rejection that would end the lab.
    this.server = createServer((req, res) => this.route(req, res).catch(() => res.destroy()));
    // `next` is held open for as long as the environment idles.
    this.server.requestTimeout = 0;
    this.server.headersTimeout = 0;
    this.server.keepAliveTimeout = 0;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Hands an event to the runtime; resolves with what it reports for it. */
  deliver(invocation: Invocation): Promise<RuntimeReport> {
    if (this.current) throw new Error("the environment is already running an invocation");
    return new Promise((settle) => {
      this.current = { invocation, settle };
      if (this.waitingNext) this.sendNext(this.waitingNext, invocation);
      else this.queued = invocation;
    });
  }

  close(): void {
    this.waitingNext?.destroy();
    this.server.closeAllConnections();
    this.server.close();
  }

  private sendNext(res: ServerResponse, invocation: Invocation): void {
    this.waitingNext = null;
    this.queued = null;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "lambda-runtime-aws-request-id": invocation.requestId,
      "lambda-runtime-deadline-ms": String(invocation.deadlineMs),
      "lambda-runtime-invoked-function-arn": invocation.functionArn,
      "lambda-runtime-trace-id": invocation.traceId,
    };
    res.writeHead(200, headers).end(invocation.payload);
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "";
    if (req.method === "GET" && url === `${PREFIX}/invocation/next`) {
      if (this.waitingNext) return json(res, 400, { errorType: "InvalidStateTransition", errorMessage: "a next request is already waiting" });
      this.onNext();
      if (this.queued) return this.sendNext(res, this.queued);
      this.waitingNext = res;
      res.on("close", () => {
        if (this.waitingNext === res) this.waitingNext = null;
      });
      this.onIdle();
      return;
    }
    if (req.method !== "POST") return json(res, 404, { errorType: "NotFound", errorMessage: `no route for ${req.method} ${url}` });

    const body = await readBody(req, MAX_RESPONSE_BYTES);
    if (body === null) return json(res, 413, { errorType: "RequestEntityTooLarge", errorMessage: `response over ${MAX_RESPONSE_BYTES} bytes` });
    const declaredType = req.headers["lambda-runtime-function-error-type"];
    const errorType = typeof declaredType === "string" && ERROR_TYPE.test(declaredType) ? declaredType : null;

    if (url === `${PREFIX}/init/error`) {
      this.initError = { kind: "error", errorType, body };
      return json(res, 202, { status: "OK" });
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    if (!match) return json(res, 404, { errorType: "NotFound", errorMessage: `no route for POST ${url}` });
    const [, id, outcome] = match;
    if (!this.current || decodeURIComponent(id!) !== this.current.invocation.requestId) {
      return json(res, 400, { errorType: "InvalidRequestID", errorMessage: "Invalid request ID" });
    }
    const { settle } = this.current;
    this.current = null;
    json(res, 202, { status: "OK" });
    settle(outcome === "response" ? { kind: "response", body } : { kind: "error", errorType, body });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** The request body, or null when it exceeds the limit. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
