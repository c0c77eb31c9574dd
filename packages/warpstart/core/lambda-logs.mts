// Lambda's log lines in its text format (developer guide: nodejs-logging.md): the lab writes
// them, the bench reads REPORT from the lab's logs and from AWS's alike. Tabs separate REPORT
// fields; Init Duration follows Max Memory Used, only on a cold start.
import { createHash } from "node:crypto";
import type { Runtime } from "./runtimes.mts";

/**
 * INIT_START as Lambda writes it (`Runtime Version: nodejs:22.v48`, and a version ARN of the
 * region with no account: arn:aws:lambda:us-east-1::runtime:<64 hex>). The lab's version says it
 * is the lab's; its ARN hashes the local runtime, so another runtime has another ARN, as on Lambda.
 */
export function initStartLine(functionArn: string, runtime: Pick<Runtime, "lambdaRuntime" | "name" | "version">): string {
  const [, partition, , region] = functionArn.split(":");
  const family = runtime.lambdaRuntime.replace(/^nodejs(\d+)\.x$/, "nodejs:$1").replace(/^provided\./, "provided:");
  const hash = createHash("sha256").update(`${runtime.name} ${runtime.version}`).digest("hex");
  return `INIT_START Runtime Version: ${family}.warpstart-lab\tRuntime Version ARN: arn:${partition}:lambda:${region}::runtime:${hash}`;
}

const INIT_START = /^INIT_START Runtime Version: (?<version>\S+)\tRuntime Version ARN: (?<arn>\S+)/m;

/** Reads INIT_START out of a log (a cold start's): the runtime version and its ARN, which a function's RuntimeManagementConfig pins. */
export function parseInitStart(log: string): { runtimeVersion: string; runtimeVersionArn: string } | null {
  const match = INIT_START.exec(log);
  return match?.groups ? { runtimeVersion: match.groups.version!, runtimeVersionArn: match.groups.arn! } : null;
}

export function startLine(requestId: string): string {
  return `START RequestId: ${requestId} Version: $LATEST`;
}

export function endLine(requestId: string): string {
  return `END RequestId: ${requestId}`;
}

export interface ReportFields {
  requestId: string;
  durationMs: number;
  memorySizeMb: number;
  maxMemoryUsedMb: number;
  initDurationMs?: number;
  status?: "timeout" | "error";
}

export function reportLine(fields: ReportFields): string {
  // On-demand INIT is billed since Aug 2025: billed = duration + init, rounded up to 1 ms.
  const billed = Math.ceil(fields.durationMs + (fields.initDurationMs ?? 0));
  const parts = [
    `REPORT RequestId: ${fields.requestId}`,
    `Duration: ${fields.durationMs.toFixed(2)} ms`,
    `Billed Duration: ${billed} ms`,
    `Memory Size: ${fields.memorySizeMb} MB`,
    `Max Memory Used: ${fields.maxMemoryUsedMb} MB`,
  ];
  if (fields.initDurationMs !== undefined) parts.push(`Init Duration: ${fields.initDurationMs.toFixed(2)} ms`);
  if (fields.status) parts.push(`Status: ${fields.status}`);
  return `${parts.join("\t")}\t`;
}

export function initReportLine(initDurationMs: number, status: "error" | "timeout", errorType?: string): string {
  const parts = [`INIT_REPORT Init Duration: ${initDurationMs.toFixed(2)} ms`, "Phase: init", `Status: ${status}`];
  if (errorType) parts.push(`Error Type: ${errorType}`);
  return parts.join("\t");
}

const REPORT =
  /^REPORT RequestId: (?<requestId>\S+)\tDuration: (?<duration>[\d.]+) ms\tBilled Duration: \d+ ms\tMemory Size: \d+ MB\tMax Memory Used: (?<maxMemory>\d+) MB(?:\tInit Duration: (?<init>[\d.]+) ms)?/m;

/** Reads a REPORT line out of a log (Init Duration is optional: warm invokes have none). */
export function parseReport(log: string): { requestId: string; durationMs: number; maxMemoryUsedMb: number; initDurationMs: number | null } | null {
  const match = REPORT.exec(log);
  if (!match?.groups) return null;
  const { requestId, duration, maxMemory, init } = match.groups;
  return { requestId: requestId!, durationMs: Number(duration), maxMemoryUsedMb: Number(maxMemory), initDurationMs: init ? Number(init) : null };
}

const LOG_TAIL_BYTES = 4096;

/** The last 4 KB of a log, as Invoke's LogType Tail returns it (cut at a line start where possible). */
export function logTail(lines: string[]): string {
  const text = `${lines.join("\n")}\n`;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= LOG_TAIL_BYTES) return text;
  return bytes.subarray(bytes.length - LOG_TAIL_BYTES).toString("utf8");
}
