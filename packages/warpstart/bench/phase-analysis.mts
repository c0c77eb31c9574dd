// Where a cold start's milliseconds go, by phase: the lab's own timestamps of an execution
// environment (started, first asked for an event) and the marks bench/phase-marks.mjs leaves
// inside the function's process, all on one monotonic clock. Pure: `npm run phases` (cli/phases.mts)
// collects, this computes, tabulates and draws.

import { markdownText, renderTable, type TableFormat } from "../core/tables.mts";
import { percentile } from "../measure/stats.mts";
import { SDK_CHUNK_FILE } from "../src/contract.mts";
import { escapeXml, FONT, niceTicks } from "./chart.mts";

/** The phases, in order; each ends where the next begins. */
export const PHASES = [
  { id: "processStart", label: "process start", says: "exec, Node's bootstrap, up to the first JavaScript (the marks' preload)" },
  { id: "runtimeClient", label: "runtime client", says: "aws-lambda-ric loads, up to its import of the handler" },
  {
    id: "handlerLoad",
    label: "handler load",
    says: "the handler's modules and top-level code, up to its first AWS request (the SDK's request building included)",
  },
  { id: "awsCall", label: "AWS call", says: "request created to response headers: connection, TLS, the local AWS with Lambda's network" },
  {
    id: "restOfInit",
    label: "rest of INIT",
    says: "reading and parsing the answer, the rest of the top-level code, the runtime client's first request for an event",
  },
  { id: "firstInvoke", label: "first invoke", says: "the event delivered to the response read" },
] as const;

/** A Warp function's handler load, split where its SDK chunk loader says how far it got. */
export const CHUNK_STEPS = [
  { id: "beforeChunk", label: "up to the chunk" },
  { id: "chunkCompile", label: "chunk read, cache deserialized" },
  { id: "chunkEvaluate", label: "chunk evaluated" },
  { id: "afterChunk", label: "after the chunk, up to the request" },
] as const;

type PhaseId = (typeof PHASES)[number]["id"];
type ChunkStepId = (typeof CHUNK_STEPS)[number]["id"];
export type PhaseDurations = Record<PhaseId, number> & { chunkSteps?: Record<ChunkStepId, number> };

/** What one cold start left: the lab's timestamps and the function's marks (ns, one monotonic clock). */
export interface ColdStartTimeline {
  spawnedAt: bigint;
  readyAt: bigint;
  invokeStartedAt: bigint;
  invokeEndedAt: bigint;
  /**
   * From bench/phase-marks.mjs: preload, handler-import, aws-request, aws-response (the last two
   * only if INIT calls AWS), and sdk-chunk-started, -compiled, -evaluated (only from Warp's chunk).
   */
  marks: Record<string, bigint>;
}

/** The marks file's lines ("<name> <ns>"), as a record; a line that is not a mark is an error. */
export function parseMarks(text: string): Record<string, bigint> {
  const marks: Record<string, bigint> = {};
  for (const line of text.split("\n").filter(Boolean)) {
    const match = /^([a-z-]+) (\d+)$/.exec(line);
    if (!match) throw new Error(`not a phase mark: ${JSON.stringify(line)}`);
    marks[match[1]!] = BigInt(match[2]!);
  }
  return marks;
}

const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/** A mark made during INIT (by `readyAt`), or undefined: a request made later is the first invoke's (a CommonJS handler cannot wait for one at INIT). */
const duringInit = (mark: bigint | undefined, readyAt: bigint) => (mark !== undefined && mark <= readyAt ? mark : undefined);

/**
 * Each phase's milliseconds. Without an AWS request during INIT, handler load runs to the end of
 * INIT and the AWS call and what follows it are 0. Marks out of order (or missing) are an error:
 * they would mean the marks no longer measure what the phases say.
 */
export function phaseDurations(timeline: ColdStartTimeline): PhaseDurations {
  const { marks } = timeline;
  const preload = marks.preload;
  const handlerImport = marks["handler-import"];
  if (preload === undefined || handlerImport === undefined) throw new Error(`missing marks: got ${Object.keys(marks).join(", ") || "none"}`);
  const request = duringInit(marks["aws-request"], timeline.readyAt) ?? timeline.readyAt;
  const response = duringInit(marks["aws-response"], timeline.readyAt) ?? request;
  const points = [timeline.spawnedAt, preload, handlerImport, request, response, timeline.readyAt];
  if (points.some((point, i) => i > 0 && point < points[i - 1]!)) throw new Error("phase marks out of order");
  if (timeline.invokeEndedAt < timeline.invokeStartedAt) throw new Error("the invoke ended before it started");
  const durations: PhaseDurations = {
    processStart: ms(timeline.spawnedAt, preload),
    runtimeClient: ms(preload, handlerImport),
    handlerLoad: ms(handlerImport, request),
    awsCall: ms(request, response),
    restOfInit: ms(response, timeline.readyAt),
    firstInvoke: ms(timeline.invokeStartedAt, timeline.invokeEndedAt),
  };
  const chunk = [marks["sdk-chunk-started"], marks["sdk-chunk-compiled"], marks["sdk-chunk-evaluated"]];
  if (chunk.every((point) => point !== undefined)) {
    const [started, compiled, evaluated] = chunk as [bigint, bigint, bigint];
    if (!(handlerImport <= started && started <= compiled && compiled <= evaluated && evaluated <= request)) throw new Error("SDK chunk marks out of order");
    durations.chunkSteps = {
      beforeChunk: ms(handlerImport, started),
      chunkCompile: ms(started, compiled),
      chunkEvaluate: ms(compiled, evaluated),
      afterChunk: ms(evaluated, request),
    };
  }
  return durations;
}

/** Where a profiled cold start's handler load went, by what V8's CPU profiler saw running. */
const CPU_PROFILE_PARTS = [
  { id: "builtins", label: "builtins loaded" },
  { id: "httpsRequest", label: "request + TLS socket" },
  { id: "gc", label: "GC" },
  { id: "sdkCache", label: "SDK cache deserialized" },
  { id: "sdkEvaluation", label: "SDK modules evaluated" },
  { id: "sdkCall", label: "SDK's first call" },
  { id: "code", label: "other code" },
] as const;

type CpuProfilePartId = (typeof CPU_PROFILE_PARTS)[number]["id"];
export type CpuProfileSplit = Record<CpuProfilePartId, number>;

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
}

/** The parts of a .cpuprofile (Chrome DevTools format, as node --cpu-prof writes it) that the split reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  /** µs, on the same monotonic clock as the marks. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Node's functions that load a builtin (an ES import, require, process.getBuiltinModule), by file. */
const BUILTIN_LOADERS: Record<string, string[]> = {
  "node:internal/bootstrap/realm": ["compileForPublicLoader", "compileForInternalLoader", "requireBuiltin"],
  "node:internal/modules/helpers": ["loadBuiltinModule", "getBuiltinModule"],
};

const inSdkChunk = (frame: CallFrame) => frame.url.endsWith(`/${SDK_CHUNK_FILE}`);
/** The chunk's CommonJS wrapper (line 1, anonymous): below it runs the modules' top-level code. */
const isChunkWrapper = (frame: CallFrame) => inSdkChunk(frame) && frame.lineNumber === 0 && frame.functionName === "";

/** A stack's part (the sampled frame first): the first frame that names one decides. */
function partOf(stack: CallFrame[]): CpuProfilePartId {
  for (const [i, frame] of stack.entries()) {
    if (frame.functionName === "(garbage collector)") return "gc";
    if (BUILTIN_LOADERS[frame.url]?.includes(frame.functionName)) return "builtins";
    if (frame.url === "node:https" && frame.functionName === "request") return "httpsRequest";
    // The chunk loader's `new Script(source, { cachedData })`: V8 deserializes the cache there.
    if (frame.url === "node:vm" && frame.functionName === "Script") return "sdkCache";
    if (inSdkChunk(frame)) return stack.slice(i).some(isChunkWrapper) ? "sdkEvaluation" : "sdkCall";
  }
  return "code";
}

/**
 * The handler load of one profiled cold start (from the handler's import to its first AWS request,
 * or INIT's end without one), split by what was running: each sample's time goes to the part of
 * the nearest frame up its stack that has one, else to other code. Warp's SDK chunk has three
 * parts of its own: deserializing its code cache, its modules' top-level code, and everything
 * else it runs (client, command and the SDK's request path, for the first time).
 */
export function cpuProfileSplit(profile: CpuProfile, marks: Record<string, bigint>, readyAt: bigint): CpuProfileSplit {
  const from = marks["handler-import"];
  if (from === undefined) throw new Error("the profiled run left no handler-import mark");
  const to = duringInit(marks["aws-request"], readyAt) ?? readyAt;
  const [fromUs, toUs] = [Number(from / 1000n), Number(to / 1000n)];
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const stackOf = (id: number) => {
    const stack: CallFrame[] = [];
    for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) stack.push(byId.get(node)!.callFrame);
    return stack;
  };
  const split = Object.fromEntries(CPU_PROFILE_PARTS.map(({ id }) => [id, 0])) as CpuProfileSplit;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at >= toUs) return;
    // A sample stands for the time until the next one.
    split[partOf(stackOf(id))] += (profile.timeDeltas[i + 1] ?? 0) / 1000;
  });
  return split;
}

/** One measured function: its cold starts with marks, and Init Duration of the interleaved ones without. */
export interface FunctionPhases {
  name: string;
  profile: string;
  withMarks: PhaseDurations[];
  /** Init Duration of the same function's cold starts without the marks: what the marks themselves cost. */
  initWithoutMarksMs: number[];
  /** With --cpu-prof: the handler load of each profiled cold start (a third start per round), by what was running. */
  cpuProfiled: CpuProfileSplit[];
  failures: string[];
}

export interface PhaseResults {
  /** 2: each function's phases under `functions` (schema 1 called them `variants`). */
  schema: 2;
  startedAt: string;
  rounds: number;
  fidelity: string;
  functions: FunctionPhases[];
  versions: Record<string, string>;
}

const INIT_PHASES: PhaseId[] = ["processStart", "runtimeClient", "handlerLoad", "awsCall", "restOfInit"];
const initOf = (durations: PhaseDurations): number => INIT_PHASES.reduce((sum, id) => sum + durations[id], 0);

/** The p50 of each phase (so the p50s need not add up to the p50 of the whole). */
function phaseMedians(fn: FunctionPhases): Record<PhaseId, number> {
  const median = (id: PhaseId) =>
    percentile(
      fn.withMarks.map((durations) => durations[id]),
      50,
    );
  return Object.fromEntries(PHASES.map(({ id }) => [id, median(id)])) as Record<PhaseId, number>;
}

const fmt = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "–");
const p50Cell = (values: number[]) => fmt(percentile(values, 50));
const nameCell = (fn: FunctionPhases, format: TableFormat) => (format === "text" ? fn.name : markdownText(fn.name));

/** A row per function with an SDK chunk: each step of its handler load, p50. "" when none has one. */
export function chunkStepTable(results: PhaseResults, format: TableFormat): string {
  const rows = results.functions.flatMap((fn) => {
    const steps = fn.withMarks.flatMap((durations) => (durations.chunkSteps ? [durations.chunkSteps] : []));
    if (steps.length === 0) return [];
    const stepCells = CHUNK_STEPS.map(({ id }) => p50Cell(steps.map((step) => step[id])));
    return [[nameCell(fn, format), String(steps.length), ...stepCells, p50Cell(fn.withMarks.map((d) => d.handlerLoad))]];
  });
  return rows.length === 0 ? "" : renderTable(["function", "n", ...CHUNK_STEPS.map((step) => step.label), "handler load"], rows, format);
}

/** A row per profiled function: each part of its handler load, p50 (profiled runs: the profiler slows them). "" when none was. */
export function cpuProfileTable(results: PhaseResults, format: TableFormat): string {
  const rows = results.functions
    .filter((fn) => fn.cpuProfiled.length > 0)
    .map((fn) => {
      const total = fn.cpuProfiled.map((split) => CPU_PROFILE_PARTS.reduce((sum, { id }) => sum + split[id], 0));
      const partCells = CPU_PROFILE_PARTS.map(({ id }) => p50Cell(fn.cpuProfiled.map((split) => split[id])));
      return [nameCell(fn, format), String(fn.cpuProfiled.length), ...partCells, p50Cell(total)];
    });
  return rows.length === 0 ? "" : renderTable(["function", "n", ...CPU_PROFILE_PARTS.map((part) => part.label), "handler load, profiled"], rows, format);
}

/** A row per function: each phase's p50, Init p50 with the marks and without them. */
export function phaseTable(results: PhaseResults, format: TableFormat): string {
  const rows = results.functions
    .filter((fn) => fn.withMarks.length > 0)
    .map((fn) => {
      const medians = phaseMedians(fn);
      return [
        nameCell(fn, format),
        String(fn.withMarks.length),
        ...PHASES.map(({ id }) => fmt(medians[id])),
        p50Cell(fn.withMarks.map(initOf)),
        fn.initWithoutMarksMs.length ? p50Cell(fn.initWithoutMarksMs) : fmt(Number.NaN),
      ];
    });
  return renderTable(["function", "n", ...PHASES.map((phase) => phase.label), "Init p50", "Init p50, no marks"], rows, format);
}

export function phaseReport(results: PhaseResults): string {
  const legend = PHASES.map((phase) => `- **${phase.label}**: ${phase.says}.`).join("\n");
  const failures = results.functions.flatMap((fn) => fn.failures.map((failure) => `- ${markdownText(fn.name)}: ${markdownText(failure)}`));
  return [
    "# Cold start by phase",
    "",
    `${results.rounds} rounds, each function once with the phase marks and once without, in a shuffled order; ${results.fidelity}. ` +
      "Each cell is that phase's p50 in ms; Init p50 is the whole INIT of the marked cold starts, and the last column the same " +
      "function's unmarked ones (the difference is what the marks cost).",
    "",
    phaseTable(results, "markdown"),
    "",
    "![Cold start by phase](phases.svg)",
    "",
    legend,
    ...optionalSection(
      "Handler load of Warp's SDK chunk (p50, ms)",
      "Where Warp's chunk loader said it started, compiled (read the chunk, deserialized its code cache) and evaluated the chunk.",
      chunkStepTable(results, "markdown"),
    ),
    ...optionalSection(
      "Handler load under V8's CPU profiler (p50, ms)",
      "A third cold start per round, with `--cpu-prof` (`profiles/` holds each .cpuprofile): each sample of the handler load goes to the builtins " +
        "Node loaded, the creation of the request and its TLS socket, the garbage collector, Warp's SDK chunk (its code cache deserialized, " +
        "its modules' top-level code, everything else it runs up to the request: the SDK's first call), or else other code (the handler's, " +
        "or an SDK bundled into it). " +
        "The profiler slows everything down: compare the rows, not these times with the phases above.",
      cpuProfileTable(results, "markdown"),
    ),
    ...(failures.length ? ["", "## Failures", "", ...failures] : []),
    "",
    "## Versions",
    "",
    renderTable(["component", "version"], Object.entries(results.versions), "markdown", ["left", "left"]),
    "",
  ].join("\n");
}

/** A report section that is there only when its table is (a table of nothing is ""). */
function optionalSection(title: string, text: string, table: string): string[] {
  return table === "" ? [] : ["", `## ${title}`, "", text, "", table];
}

const COLORS = ["#9aa5b1", "#c3a6e0", "#4c78a8", "#f58518", "#e45756", "#72b7b2"];
const WIDTH = 900;
const LABEL_RIGHT = 150;
const PLOT_LEFT = 160;
const PLOT_RIGHT = 860;
const TOP = 64;
const ROW = 30;
const BAR = 18;

/** One stacked bar per function: each phase's p50, in phase order, on a shared ms axis. */
export function phaseChartSvg(results: PhaseResults, title = "Cold start by phase (p50, ms)"): string {
  const rows = results.functions.filter((fn) => fn.withMarks.length > 0).map((fn) => ({ name: fn.name, medians: phaseMedians(fn) }));
  const total = (medians: Record<PhaseId, number>) => PHASES.reduce((sum, { id }) => sum + medians[id], 0);
  const ticks = niceTicks(Math.max(1, ...rows.map((row) => total(row.medians))));
  const max = ticks.at(-1)!;
  const x = (value: number) => PLOT_LEFT + (value / max) * (PLOT_RIGHT - PLOT_LEFT);
  const axisY = TOP + rows.length * ROW + 6;
  const legendY = axisY + 40;
  const height = legendY + 30;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ${FONT} font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="28" text-anchor="middle" font-size="16" font-weight="600">${escapeXml(title)}</text>`,
  ];
  for (const tick of ticks) {
    out.push(`<line x1="${x(tick)}" y1="${TOP - 8}" x2="${x(tick)}" y2="${axisY}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x(tick)}" y="${axisY + 16}" text-anchor="middle" fill="#555">${tick}</text>`);
  }
  rows.forEach((row, i) => {
    const y = TOP + i * ROW;
    out.push(`<text x="${LABEL_RIGHT}" y="${y + BAR / 2 + 4}" text-anchor="end">${escapeXml(row.name)}</text>`);
    let at = 0;
    PHASES.forEach(({ id, label }, p) => {
      const width = x(at + row.medians[id]) - x(at);
      out.push(
        `<rect x="${x(at).toFixed(1)}" y="${y}" width="${Math.max(0, width).toFixed(1)}" height="${BAR}" fill="${COLORS[p]}"><title>${escapeXml(`${row.name}: ${label} ${fmt(row.medians[id])} ms`)}</title></rect>`,
      );
      at += row.medians[id];
    });
    out.push(`<text x="${x(at) + 4}" y="${y + BAR / 2 + 4}" fill="#333">${fmt(at)}</text>`);
  });
  out.push(
    `<text x="${(PLOT_LEFT + PLOT_RIGHT) / 2}" y="${axisY + 32}" text-anchor="middle" fill="#555">ms, phase after phase (each its p50; the first invoke follows INIT)</text>`,
  );
  let legendX = PLOT_LEFT - 120;
  PHASES.forEach(({ label }, p) => {
    out.push(`<rect x="${legendX}" y="${legendY}" width="12" height="12" fill="${COLORS[p]}"/>`);
    out.push(`<text x="${legendX + 16}" y="${legendY + 10}">${escapeXml(label)}</text>`);
    legendX += 26 + label.length * 7;
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
