// `warpstart keepalive`:
// what the https agent's keep-alive does to a warm function's AWS calls, in the local lab. For
// each function (default Optimized, the SDK's default agent with keep-alive on, and NoKeepAlive,
// built with keep-alive off) and each K: one warm-up invoke, then N invokes of the same warm
// environment, each making K sequential calls with the INIT's client (?calls=K). The local AWS
// counts the TCP connections it accepts (one TLS session each). Prints the table and writes
// DIR/keepalive.json and DIR/keepalive.md.

import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import { localVersions, machine } from "../bench/environment.mts";
import type { BenchResults } from "../bench/results.mts";
import { keepsAlive } from "../builder/build.mts";
import { errorMessage } from "../core/errors.mts";
import {
  assertFunctionsOf,
  defineCommand,
  FUNCTIONS_OPTIONS,
  NO_BUILD_OPTION,
  type Parsed,
  TEMPLATE_OPTION,
  UsageError,
  VARIANTS_RULE,
  wholeNumber,
} from "../core/options.mts";
import { builtTemplateOf, timestamp } from "../core/paths.mts";
import { renderTable } from "../core/tables.mts";
import { readTemplate, type TemplateFunction } from "../core/template.mts";
import { lambdaSdk } from "../core/tools.mts";
import { functionEvent } from "../emulation/events.mts";
import { describeFidelity, FIDELITY_OPTIONS, type Fidelity, fidelityFrom } from "../lab/fidelity.mts";
import { type Lab, labClient, withLab } from "../lab/lab.mts";
import { PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";
import { samBuild } from "../lab/sam.mts";
import { summarize } from "../measure/stats.mts";

const OPTIONS = {
  ...TEMPLATE_OPTION,
  ...FUNCTIONS_OPTIONS,
  // Its own default: the two functions whose keep-alive differs.
  functions: {
    value: "LIST",
    default: "Optimized,NoKeepAlive",
    help: "its functions to measure; a function built with BuildProperties.Define KEEP_ALIVE: false\nruns without keep-alive",
  },
  calls: { value: "LIST", default: "1,10", help: "sequential calls per invoke, ?calls=K" },
  query: { value: "N=V", multiple: true, help: "another query parameter for every invoke (e.g. operation=ListTables; repeatable)" },
  invokes: { value: "N", whole: [1], default: "20", help: "measured invokes per function and K, after one warm-up invoke" },
  out: { value: "DIR", help: "where keepalive.json and keepalive.md go (default: results/keepalive-<date-time>)" },
  ...NO_BUILD_OPTION,
  ...PARAMETER_OPTIONS,
  ...FIDELITY_OPTIONS,
} as const;

/** One function at one K: every call's latency and the connections the N invokes opened. */
export interface KeepAliveRow {
  function: string;
  keepAlive: boolean;
  callsPerInvoke: number;
  /** Measured invokes that answered (the warm-up not counted). */
  invokes: number;
  /** Each call's latency as the handler timed it, in invoke order. */
  latenciesMs: number[];
  /** TCP connections the local AWS accepted during the measured invokes. */
  connections: number;
  /** Measured invokes that started a new environment (0: one warm environment throughout). */
  coldStarts: number;
  failures: string[];
}

export interface KeepAliveResults {
  /** 3: a row names its `function` (schema 2 called it `variant`); 2 added the lab's fidelity. */
  schema: 3;
  startedAt: string;
  finishedAt: string;
  /** Measured invokes per row. */
  invokes: number;
  /** What the lab played of Lambda's network (what keep-alive saves depends on it) and code loading. */
  fidelity: Fidelity;
  rows: KeepAliveRow[];
  checks: Verdict[];
  versions: Record<string, string>;
  machine: BenchResults["machine"];
}

/** One line of the run's verdict: whether what it checks held, and what it says. */
export interface Verdict {
  ok: boolean;
  text: string;
}

function options({ values }: Parsed<typeof OPTIONS>) {
  const templateFile = resolve(values.template);
  const parameterOverrides = parameterOverridesFrom(values, templateFile);
  const template = readTemplate(templateFile, parameterOverrides);
  const chosen = values.variants ?? values.functions;
  const names = chosen.split(",").map((name) => name.trim());
  assertFunctionsOf(template, names);
  const functions = names.map((name) => template.functions.find((candidate) => candidate.logicalId === name)!);
  const calls = values.calls.split(",").map((k) => wholeNumber("calls", k.trim(), 1, 100)!);
  const query = Object.fromEntries(
    values.query.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new UsageError(`--query must be NAME=VALUE, not "${pair}"`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  return {
    template: template.file,
    functions,
    calls,
    query,
    build: !values["no-build"],
    fidelity: fidelityFrom(values),
    parameterOverrides,
    invokes: values.invokes,
    out: resolve(values.out ?? join("results", `keepalive-${timestamp()}`)),
  };
}

interface Answer {
  coldstart: boolean;
  calls: { count: number; latenciesMs: number[] };
}

async function invoke(client: LambdaClient, functionName: string, event: unknown): Promise<Answer> {
  const out = await client.send(new (await lambdaSdk()).InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(event)) }));
  const payload = JSON.parse(Buffer.from(out.Payload ?? []).toString("utf8"));
  if (out.FunctionError) throw new Error(`${payload.errorType}: ${payload.errorMessage}`);
  return JSON.parse(payload.body) as Answer;
}

/** Warm-up, then `invokes` measured invokes of one function at K calls each. */
async function measure(
  lab: Lab,
  client: LambdaClient,
  fn: TemplateFunction,
  callsPerInvoke: number,
  invokes: number,
  query: Record<string, string>,
): Promise<KeepAliveRow> {
  const row: KeepAliveRow = {
    function: fn.logicalId,
    keepAlive: keepsAlive(fn),
    callsPerInvoke,
    invokes: 0,
    latenciesMs: [],
    connections: 0,
    coldStarts: 0,
    failures: [],
  };
  let event: unknown;
  try {
    event = functionEvent(fn, { ...query, calls: String(callsPerInvoke) });
  } catch (error) {
    row.failures.push(errorMessage(error));
    return row;
  }
  try {
    await invoke(client, fn.logicalId, event); // warm: INIT done and, with keep-alive, a connection open
  } catch (error) {
    row.failures.push(`warm-up: ${errorMessage(error)}`);
    return row;
  }
  const before = lab.aws.connections();
  for (let i = 0; i < invokes; i++) {
    try {
      const answer = await invoke(client, fn.logicalId, event);
      if (answer.calls.count !== callsPerInvoke) throw new Error(`asked for ${callsPerInvoke} calls, the function made ${answer.calls.count}`);
      row.invokes++;
      row.latenciesMs.push(...answer.calls.latenciesMs);
      if (answer.coldstart) row.coldStarts++;
    } catch (error) {
      row.failures.push(errorMessage(error));
    }
  }
  row.connections = lab.aws.connections() - before;
  return row;
}

/**
 * Keep-alive on: one warm environment makes all its calls over the connection it already has
 * (1 allowed, should the server have closed it while idle). Off: a connection for every call.
 */
export function reuseCheck(row: KeepAliveRow): Verdict {
  const calls = row.invokes * row.callsPerInvoke;
  const what = `${row.function}, K = ${row.callsPerInvoke}: ${row.invokes} invokes (${calls} calls) of one warm environment opened ${row.connections} connection(s)`;
  if (row.failures.length > 0 || row.invokes === 0) return { ok: false, text: `${what}; ${row.failures.length} invoke(s) failed` };
  if (row.coldStarts > 0) return { ok: false, text: `${what}, but ${row.coldStarts} invoke(s) started a new environment` };
  return row.keepAlive
    ? { ok: row.connections <= 1, text: `${what}; keep-alive expects 0 (or 1)` }
    : { ok: row.connections >= calls, text: `${what}; without keep-alive, one per call: ${calls}` };
}

const fixed = (value: number | null, digits: number) => (value === null ? "–" : value.toFixed(digits));

/** The table, as Markdown padded to aligned columns (readable on a terminal too). */
export function keepAliveTable(rows: KeepAliveRow[]): string {
  const header = ["function", "keep-alive", "K", "calls", "p50 ms/call", "p90 ms/call", "connections", "connections/invoke"];
  const cells = rows.map((row) => {
    const summary = summarize(row.latenciesMs);
    const perInvoke = row.invokes === 0 ? null : row.connections / row.invokes;
    return [
      row.function,
      row.keepAlive ? "on" : "off",
      String(row.callsPerInvoke),
      String(row.latenciesMs.length),
      fixed(summary.p50, 2),
      fixed(summary.p90, 2),
      String(row.connections),
      fixed(perInvoke, 2),
    ];
  });
  return renderTable(header, cells, "aligned-markdown", ["left", "left"]);
}

const checkLines = (checks: Verdict[]) => checks.map((check) => `- ${check.ok ? "OK" : "FAILED"}: ${check.text}`).join("\n");

export function keepAliveMarkdown(results: KeepAliveResults): string {
  const failures = results.rows.flatMap((row) => row.failures.map((failure) => `- ${row.function}, K = ${row.callsPerInvoke}: ${failure}`));
  return `${[
    "# Keep-alive and AWS calls (local lab)",
    `${results.startedAt} – ${results.finishedAt}. Per function and K: one warm-up invoke, then ${results.invokes} invokes of the same warm ` +
      "environment, each making K sequential calls with the INIT's client (?calls=K). Latency is each call as the " +
      "handler timed it; connections are the TCP connections the local AWS accepted during the measured invokes (one TLS session each). " +
      `Lab: ${describeFidelity(results.fidelity)}.`,
    keepAliveTable(results.rows),
    "## One warm environment, one connection",
    checkLines(results.checks),
    ...(failures.length ? ["## Failures", failures.join("\n")] : []),
    "## Versions and machine",
    [
      ...Object.entries(results.versions).map(([name, version]) => `- ${name}: ${version}`),
      `- CPU: ${results.machine.cpuModel} × ${results.machine.cpuCount}`,
    ].join("\n"),
  ].join("\n\n")}\n`;
}

async function main(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  const opts = options(parsed);
  if (opts.build) {
    console.error("== sam build");
    await samBuild({ template: opts.template, quiet: true, parameterOverrides: opts.parameterOverrides });
  }
  console.error("== starting the lab (local AWS + Lambda API)");
  return withLab({ template: builtTemplateOf(opts.template), parameterOverrides: opts.parameterOverrides, fidelity: opts.fidelity }, async (lab) => {
    const client = labClient(lab);
    const startedAt = new Date().toISOString();
    const rows: KeepAliveRow[] = [];
    for (const fn of opts.functions) {
      for (const calls of opts.calls) {
        console.error(`== ${fn.logicalId}, K = ${calls}: 1 warm-up + ${opts.invokes} invokes`);
        rows.push(await measure(lab, client, fn, calls, opts.invokes, opts.query));
      }
    }
    const checks = rows.map(reuseCheck);
    const results: KeepAliveResults = {
      schema: 3,
      startedAt,
      finishedAt: new Date().toISOString(),
      invokes: opts.invokes,
      fidelity: lab.fidelity,
      rows,
      checks,
      versions: localVersions(),
      machine: machine(),
    };
    mkdirSync(opts.out, { recursive: true });
    writeFileSync(join(opts.out, "keepalive.json"), `${JSON.stringify(results, null, 2)}\n`);
    const report = join(opts.out, "keepalive.md");
    writeFileSync(report, keepAliveMarkdown(results));
    const shown = relative(process.cwd(), report);
    console.log(`${keepAliveTable(rows)}\n\n${checkLines(checks)}\n\nReport: ${shown.startsWith("..") ? report : shown} (raw latencies in keepalive.json)`);
    return checks.every((check) => check.ok) ? 0 : 1;
  });
}

// exit at the end: the Lambda client's idle sockets would keep the process up for nothing
export const command = defineCommand(
  {
    name: "keepalive",
    summary: "What keep-alive saves: warm invokes of each function making K sequential calls, with keep-alive and without, in the lab.",
    options: OPTIONS,
    rules: [VARIANTS_RULE],
  },
  main,
);
