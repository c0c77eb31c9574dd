// Turns a BenchResults into tables: Markdown for report.md, aligned plain text for the terminal.
// Everything is recomputed from the raw samples so a report can be regenerated from results.json.

import { markdownText, renderTable, type TableFormat } from "../core/tables.mts";
import { describeFidelity } from "../lab/fidelity.mts";
import type { CellResult, Failure } from "../measure/cold-starts.mts";
import { PERCENTILES, pairedComparison, summarize } from "../measure/stats.mts";
import { type BenchResults, cellLabel, cellName } from "./results.mts";

export type Metric = "initMs" | "e2eMs";

const MISSING = "–";

const METRIC_LABELS: Record<Metric, string> = {
  initMs: "Init Duration",
  e2eMs: "Cold E2E",
};

function ms(value: number | null): string {
  return value === null || !Number.isFinite(value) ? MISSING : value.toFixed(1);
}

function ratio(value: number | null): string {
  return value === null || !Number.isFinite(value) ? MISSING : value.toFixed(2);
}

function withCi(point: string, ci: [number, number] | null, fmt: (value: number) => string): string {
  return ci === null ? point : `${point} [${fmt(ci[0])}, ${fmt(ci[1])}]`;
}

/** The table of "The Fastest Node 22 Lambda Coldstart Configuration" (No Backspace Crew): one row per cell, Init Duration or cold E2E percentiles in ms. */
export function percentileTable(results: BenchResults, metric: Metric, format: TableFormat): string {
  const header = ["test", "# of samples", ...PERCENTILES.map((p) => `p${p}`)];
  const rows = results.cells.map((cell) => {
    const summary = summarize(cell[metric]);
    return [cellLabel(results, cell), String(summary.n), ...PERCENTILES.map((p) => ms(summary[`p${p}` as const]))];
  });
  return renderTable(header, rows, format);
}

/**
 * The runtime matrix at a glance: one row per function (in each profile measured), one column per runtime, the metric's p50
 * (or "failed" when no round succeeded). Empty when no function was measured on several runtimes.
 */
export function matrixTable(results: BenchResults, metric: Metric, format: TableFormat): string {
  // Names measured on several runtimes: a template that puts each function on its own runtime makes no matrix.
  const names = [...new Set(results.cells.map((cell) => cell.name))].filter((name) => results.cells.filter((cell) => cell.name === name).length > 1);
  if (results.runtimes.length < 2 || names.length === 0) return "";
  const rows = names.map((name) => [
    name,
    ...results.runtimes.map((runtime) => {
      const cell = results.cells.find((candidate) => candidate.name === name && candidate.runtime === runtime);
      if (!cell) return MISSING;
      return cell[metric].length === 0 ? "failed" : ms(summarize(cell[metric]).p50);
    }),
  ]);
  return renderTable(["function", ...results.runtimes], rows, format);
}

function byRound(cell: CellResult, metric: Metric): Map<number, number> {
  return new Map(cell.samples.map((sample) => [sample.round, sample[metric]]));
}

/** Each cell against the cell `baselineOf` gives it (none: left out), paired by round. */
function pairedTable(results: BenchResults, baselineOf: (cell: CellResult) => CellResult | undefined, metric: Metric, format: TableFormat): string {
  const rows = results.cells.flatMap((cell) => {
    const base = baselineOf(cell);
    if (base === undefined || base === cell) return [];
    const c = pairedComparison(byRound(cell, metric), byRound(base, metric));
    return [[cellLabel(results, cell), String(c.n), withCi(ratio(c.ratio), c.ratioCi95, ratio), withCi(ms(c.diffMs), c.diffCi95, ms)]];
  });
  if (rows.length === 0) return "";
  return renderTable(["cell", "n pairs", "p50 ratio [95% CI]", "Δ p50 ms [95% CI]"], rows, format);
}

/**
 * Every other cell against `baseline` on the same runtime, paired by round: the same function in
 * the profile `baseline` if the run measured it, else the function named `baseline` (the demo's
 * functions are named after their profiles). "" when there is no such cell.
 */
export function ratioTable(results: BenchResults, baseline: string, metric: Metric, format: TableFormat): string {
  const on = (cell: CellResult) => {
    const sameRuntime = results.cells.filter((candidate) => candidate.runtime === cell.runtime && candidate !== cell);
    return (
      // A wrapped build's own profile is its unwrapped self: the wrapper's own table has that.
      sameRuntime.find((candidate) => candidate.function === cell.function && candidate.profile === baseline && !cell.execWrapper && !candidate.execWrapper) ??
      sameRuntime.find((candidate) => candidate.name === baseline)
    );
  };
  return pairedTable(results, on, metric, format);
}

/**
 * Each function against its Floor (the function whose template says FloorOf: it) on the same
 * runtime, paired by round: the Floor in the same profile if the run measured it so, else the
 * Floor as measured. "" when no measured function has a measured Floor.
 */
export function floorTable(results: BenchResults, metric: Metric, format: TableFormat): string {
  const floorOf = (cell: CellResult) => {
    const floors = results.cells.filter((candidate) => candidate.floorOf === cell.function && candidate.runtime === cell.runtime && !candidate.execWrapper);
    return floors.find((floor) => floor.profile === cell.profile) ?? floors[0];
  };
  return pairedTable(results, floorOf, metric, format);
}

/** Every cell started through the exec wrapper against the same build started as the runtime starts it, paired by round; "" without one. */
export function wrapperTable(results: BenchResults, metric: Metric, format: TableFormat): string {
  const unwrapped = (cell: CellResult) =>
    cell.execWrapper
      ? results.cells.find(
          (candidate) =>
            !candidate.execWrapper && candidate.function === cell.function && candidate.profile === cell.profile && candidate.runtime === cell.runtime,
        )
      : undefined;
  return pairedTable(results, unwrapped, metric, format);
}

/** Every cell against the same function (and profile) on `runtime` (the runtime matrix's comparison); "" without it. */
export function runtimeRatioTable(results: BenchResults, runtime: string, metric: Metric, format: TableFormat): string {
  if (results.runtimes.length < 2) return "";
  const same = (cell: CellResult) => results.cells.find((candidate) => candidate.name === cell.name && candidate.runtime === runtime);
  return pairedTable(results, same, metric, format);
}

/** hyperfine's process-start timings, with each runtime's ratio to the same function's on the first runtime. */
export function processStartTable(results: BenchResults, format: TableFormat): string {
  const start = results.processStart;
  if (!start) return "";
  const first = results.runtimes[0];
  const rows = start.results.map((row) => {
    const base = start.results.find((candidate) => candidate.name === row.name && candidate.runtime === first);
    return [
      row.label,
      `${ms(row.meanMs)} ± ${ms(row.stddevMs)}`,
      ms(row.medianMs),
      ms(row.minMs),
      ms(row.maxMs),
      String(row.runs),
      base ? ratio(row.meanMs / base.meanMs) : MISSING,
    ];
  });
  for (const failure of start.failures) rows.push([failure.label, "failed", MISSING, MISSING, MISSING, "0", MISSING]);
  const table = renderTable(["command", "mean ± σ ms", "median", "min", "max", "runs", `mean / ${first}`], rows, format);
  const failed = start.failures.map((failure) => {
    const line = `${failure.label} failed: ${oneLine(failure.message, 200)}`;
    return format === "markdown" ? `- ${markdownText(line)}` : line;
  });
  return [table, ...(failed.length ? ["", ...failed] : [])].join("\n");
}

/** Warm E2E p50: how fast each build is once initialized (warm invokes that failed are null). */
export function warmTable(results: BenchResults, format: TableFormat): string {
  const rows = results.cells.map((cell) => {
    const warm = cell.samples.flatMap((sample) => (sample.warmE2eMs === null ? [] : [sample.warmE2eMs]));
    const summary = summarize(warm);
    return [cellLabel(results, cell), String(summary.n), ms(summary.p50)];
  });
  return renderTable(["cell", "n", "warm E2E p50 ms"], rows, format);
}

function oneLine(message: string, max = 160): string {
  const flat = message.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const PHASES: Failure["phase"][] = ["update", "cold", "warm"];

/**
 * Failure counts per cell and phase; each error type is listed with its count and the first
 * message seen, since repeats of one error type are nearly always the same message.
 */
export function failureTable(results: BenchResults, format: TableFormat): string {
  const rows: string[][] = [];
  for (const cell of results.cells) {
    for (const phase of PHASES) {
      const failures = cell.failures.filter((failure) => failure.phase === phase);
      if (failures.length === 0) continue;
      const types = new Map<string, { count: number; first: string }>();
      for (const failure of failures) {
        const seen = types.get(failure.errorType);
        if (seen) seen.count++;
        else types.set(failure.errorType, { count: 1, first: failure.message });
      }
      const errors = [...types].map(([type, { count, first }]) => `${type} ×${count}: ${oneLine(first)}`).join("; ");
      rows.push([cellLabel(results, cell), phase, String(failures.length), errors]);
    }
  }
  for (const cell of results.notBuilt ?? []) rows.push([cellName(cell.function, cell.profile, true), "build", "1", oneLine(cell.message)]);
  if (rows.length === 0) return "No failures.";
  return renderTable(["cell", "phase", "failures", "errors (first message per type)"], rows, format, ["left", "left", "right", "left"]);
}

function describeTarget(target: BenchResults["target"]): string {
  return target.kind === "local"
    ? `local (${target.endpoint}); ${describeFidelity(target.fidelity)}`
    : `AWS stack${target.stacks.length > 1 ? "s" : ""} ${target.stacks.join(", ")} in ${target.region}`;
}

const BASELINES = ["Raw", "Bundled", "Optimized", "Warp"];
const FLOOR_NOTE = "ratio = function / its Floor, the same calls with no AWS SDK: 1.10 means 10% slower than the Floor";
const WRAPPER_NOTE =
  "ratio = the build started through the exec wrapper that drops the runtime's V8 flags / the same build started with them (docs/warp.md#below-the-runtimes-flags)";

/** A complete report.md; chart.svg is expected next to it. */
export function markdownReport(results: BenchResults): string {
  const out: string[] = [];
  const section = (title: string, ...body: string[]) => out.push(`## ${title}`, "", ...body.flatMap((text) => [text, ""]));

  out.push("# warpstart cold start benchmark", "");
  out.push(`- Date: ${results.startedAt} – ${results.finishedAt}`);
  out.push(`- Target: ${describeTarget(results.target)}`);
  out.push(`- Rounds: ${results.rounds} (each round cold-starts every cell once, in shuffled order)`);
  out.push(`- Functions: ${[...new Set(results.cells.map((cell) => markdownText(cell.name)))].join(", ")}`);
  out.push(`- Runtimes: ${results.runtimes.map(markdownText).join(", ")}`, "");

  section(
    "How to read this",
    "**Init Duration** is the time from the start of the execution environment to the runtime's first request for an event, " +
      "as Lambda defines it and reports it in the REPORT line of a cold invoke. **E2E** is the client's wall time for that cold " +
      "invoke (request sent to response read), so it also includes the handler's duration and the invoke overhead. " +
      "Times are in milliseconds; failed invokes never enter the timings. In the ratio tables, a ratio below 1 means faster " +
      "than the baseline and Δ is the median per-round difference (negative = faster). The intervals are 95% percentile " +
      "bootstrap intervals over rounds, pairing each cell with the baseline measured in the same round.",
    "![Init Duration per cell](chart.svg)",
  );

  const [firstRuntime] = results.runtimes;
  const matrix = matrixTable(results, "initMs", "markdown");
  if (matrix !== "") section("Runtime matrix (p50, ms)", "Init Duration:", matrix, "Cold E2E:", matrixTable(results, "e2eMs", "markdown"));
  section("Init Duration (ms)", percentileTable(results, "initMs", "markdown"));
  section("Cold E2E (ms)", percentileTable(results, "e2eMs", "markdown"));

  for (const metric of ["initMs", "e2eMs"] as const) {
    const table = firstRuntime === undefined ? "" : runtimeRatioTable(results, firstRuntime, metric, "markdown");
    if (table !== "") section(`${METRIC_LABELS[metric]} vs the same function on ${firstRuntime}`, table);
  }
  const processStart = processStartTable(results, "markdown");
  if (processStart !== "" && results.processStart) {
    section(
      "Process start (hyperfine)",
      `Each runtime starting, importing the built handler (its INIT, the STS call included) and exiting, outside any Lambda emulation; ` +
        "Empty is a handler that imports nothing, the study's own measure of a runtime's start: " +
        `${results.processStart.tool}, ${results.processStart.runs} runs after ${results.processStart.warmup} warm-up runs per command, commands one after another (not interleaved). ` +
        "The method of the Deno/Bun/Node study this project follows; its JSON export is hyperfine.json.",
      processStart,
    );
  }

  for (const baseline of BASELINES) {
    for (const metric of ["initMs", "e2eMs"] as const) {
      const table = ratioTable(results, baseline, metric, "markdown");
      if (table !== "") section(`${METRIC_LABELS[metric]} vs ${baseline}`, table);
    }
  }
  for (const metric of ["initMs", "e2eMs"] as const) {
    const table = floorTable(results, metric, "markdown");
    if (table !== "") section(`${METRIC_LABELS[metric]}: each function vs its Floor`, FLOOR_NOTE, table);
  }
  for (const metric of ["initMs", "e2eMs"] as const) {
    const table = wrapperTable(results, metric, "markdown");
    if (table !== "") section(`${METRIC_LABELS[metric]}: through the exec wrapper vs as the runtime starts it`, WRAPPER_NOTE, table);
  }

  section("Warm E2E p50 (ms)", warmTable(results, "markdown"));
  section("Failures", failureTable(results, "markdown"));

  const versions = Object.entries(results.versions);
  section("Versions", versions.length === 0 ? "None recorded." : renderTable(["component", "version"], versions, "markdown", ["left", "left"]));
  const machine = results.machine;
  section(
    "Machine",
    [
      `- Platform: ${machine.platform} ${machine.arch}`,
      `- CPU: ${machine.cpuModel} × ${machine.cpuCount}`,
      `- Memory: ${machine.memoryGiB} GiB`,
      ...(machine.hostname === undefined ? [] : [`- Host: ${machine.hostname}`]),
    ].join("\n"),
  );
  return `${out.join("\n").trimEnd()}\n`;
}

/** What the CLI prints when a run ends (a runtime matrix prints Init Duration only; report.md has the rest). */
export function consoleSummary(results: BenchResults): string {
  const matrix = matrixTable(results, "initMs", "text");
  const metrics = matrix ? (["initMs"] as const) : (["initMs", "e2eMs"] as const);
  const blocks: string[] = metrics.map((metric) => `${METRIC_LABELS[metric]} (ms)\n${percentileTable(results, metric, "text")}`);
  const [firstRuntime] = results.runtimes;
  if (matrix && firstRuntime !== undefined) {
    blocks.push(`Runtime matrix: Init Duration p50 (ms)\n${matrix}`);
    blocks.push(
      `Init Duration vs the same function on ${firstRuntime} (ratio < 1 = faster; 95% bootstrap CI)\n${runtimeRatioTable(results, firstRuntime, "initMs", "text")}`,
    );
  }
  const processStart = processStartTable(results, "text");
  if (processStart !== "") blocks.push(`Process start: start, import the handler, exit (${results.processStart!.tool})\n${processStart}`);
  for (const baseline of BASELINES) {
    for (const metric of metrics) {
      const table = ratioTable(results, baseline, metric, "text");
      if (table !== "") blocks.push(`${METRIC_LABELS[metric]} vs ${baseline} (ratio < 1 = faster; 95% bootstrap CI)\n${table}`);
    }
  }
  for (const metric of metrics) {
    const table = floorTable(results, metric, "text");
    if (table !== "") blocks.push(`${METRIC_LABELS[metric]}: each function vs its Floor (${FLOOR_NOTE}; 95% bootstrap CI)\n${table}`);
  }
  for (const metric of metrics) {
    const table = wrapperTable(results, metric, "text");
    if (table !== "") blocks.push(`${METRIC_LABELS[metric]}: through the exec wrapper vs as the runtime starts it (95% bootstrap CI)\n${table}`);
  }
  blocks.push(`Failures\n${failureTable(results, "text")}`);
  const rejected = rejectedCaches(results);
  if (rejected.length)
    blocks.push(
      `V8 rejected the code cache of ${rejected.join(", ")}: ${rejected.length > 1 ? "their" : "its"} Init Duration is a Warp compiling its chunk (the function's log says why; npx warpstart doctor names the cause)`,
    );
  return `${blocks.join("\n\n")}\n`;
}

/** The cells whose cold starts said V8 rejected their code cache (cli/bench.mts records it among the versions, per cell). */
function rejectedCaches(results: BenchResults): string[] {
  return Object.entries(results.versions).flatMap(([name, value]) => {
    const cell = /^V8 code cache \((.+)\)$/.exec(name)?.[1];
    return cell && value === "rejected" ? [cell] : [];
  });
}
