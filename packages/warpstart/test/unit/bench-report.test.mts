import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  consoleSummary,
  failureTable,
  floorTable,
  markdownReport,
  matrixTable,
  percentileTable,
  processStartTable,
  ratioTable,
  runtimeRatioTable,
  warmTable,
  wrapperTable,
} from "../../bench/report.mts";
import { type BenchResults, readBenchResults } from "../../bench/results.mts";
import type { CellResult, Failure, Sample } from "../../measure/cold-starts.mts";
import { DEMO_ROOT } from "../support/demo.mts";

function cellResult(name: string, rows: Array<[round: number, initMs: number, e2eMs: number, warmE2eMs: number | null]>, failures: Failure[] = []): CellResult {
  const samples: Sample[] = rows.map(([round, initMs, e2eMs, warmE2eMs]) => ({ round, initMs, e2eMs, durationMs: 5, warmE2eMs }));
  return {
    name,
    function: name,
    profile: name,
    runtime: "node22",
    functionName: `${name}Function`,
    samples,
    initMs: samples.map((s) => s.initMs),
    e2eMs: samples.map((s) => s.e2eMs),
    failures,
  };
}

/** Raw: init 100..400; Optimized: exactly half of Raw per round; Bundled: one round fewer. */
function fixture(): BenchResults {
  return {
    schema: 6,
    startedAt: "2025-01-02T03:04:05.000Z",
    finishedAt: "2025-01-02T03:14:05.000Z",
    target: { kind: "local", endpoint: "http://127.0.0.1:3001", fidelity: { network: { name: "dns=5,rtt=2", dnsMs: 5, rttMs: 2 }, codeLoading: "lambda" } },
    rounds: 4,
    cells: [
      cellResult("Raw", [
        [0, 100, 300, 10],
        [1, 200, 400, 12],
        [2, 300, 500, 14],
        [3, 400, 600, null],
      ]),
      cellResult("Optimized", [
        [0, 50, 150, 4],
        [1, 100, 200, 5],
        [2, 150, 250, 6],
        [3, 200, 300, 7],
      ]),
      cellResult(
        "Bundled",
        [
          [0, 90, 280, 9],
          [1, 180, 380, 9],
          [3, 360, 560, 9],
        ],
        [
          { round: 2, phase: "cold", errorType: "Runtime.InitError", message: "Cannot find module 'x'\n  at require" },
          { round: 3, phase: "warm", errorType: "Sandbox.Timedout", message: "Task timed out after 3.00 seconds" },
        ],
      ),
      cellResult(
        "Broken",
        [],
        [
          { round: 0, phase: "cold", errorType: "Runtime.InitError", message: "first message" },
          { round: 1, phase: "cold", errorType: "Runtime.InitError", message: "second message" },
          { round: 2, phase: "cold", errorType: "Runtime.ExitError", message: "exit 1" },
          { round: 3, phase: "update", errorType: "ResourceConflictException", message: "update in progress | retry" },
        ],
      ),
    ],
    runtimes: ["node22"],
    versions: { node: "22.23.3", sam: "1.150.0" },
    machine: { platform: "linux", arch: "x64", cpuModel: "Test CPU", cpuCount: 8, memoryGiB: 16, hostname: "bench-host" },
  };
}

const cells = (line: string) =>
  line
    .split("|")
    .slice(1, -1)
    .map((cell) => cell.trim());

describe("percentileTable", () => {
  it("renders the seed's Markdown header and one row per cell with 1-decimal ms", () => {
    const lines = percentileTable(fixture(), "initMs", "markdown").split("\n");
    expect(lines[0]).toBe("| test | # of samples | p0 | p50 | p90 | p95 | p99 | p100 |");
    expect(lines[1]).toMatch(/^\|(:?-+:?\|){8}$/);
    expect(lines).toHaveLength(2 + 4);
    // Raw 100..400: p50 = 250, p90 = 370, p95 = 385, p99 = 397.
    expect(cells(lines[2] ?? "")).toEqual(["Raw", "4", "100.0", "250.0", "370.0", "385.0", "397.0", "400.0"]);
    expect(cells(lines[3] ?? "")).toEqual(["Optimized", "4", "50.0", "125.0", "185.0", "192.5", "198.5", "200.0"]);
    expect(cells(lines[5] ?? "")).toEqual(["Broken", "0", "–", "–", "–", "–", "–", "–"]);
  });

  it("escapes pipes and HTML in Markdown cells but not in text", () => {
    const results = fixture();
    results.cells = [cellResult("a|b <slim>", [[0, 1, 2, null]])];
    expect(percentileTable(results, "initMs", "markdown")).toContain("| a\\|b &lt;slim&gt; | 1 |");
    expect(percentileTable(results, "initMs", "text")).toMatch(/^a\|b <slim>\s+1\s/m);
    expect(markdownReport(results)).toContain("Functions: a|b &lt;slim&gt;");
  });

  it("uses the chosen metric", () => {
    const lines = percentileTable(fixture(), "e2eMs", "markdown").split("\n");
    expect(cells(lines[2] ?? "")).toEqual(["Raw", "4", "300.0", "450.0", "570.0", "585.0", "597.0", "600.0"]);
  });

  it("aligns plain text columns without Markdown pipes", () => {
    const lines = percentileTable(fixture(), "initMs", "text").split("\n");
    expect(lines[0]).toMatch(/^test\s+# of samples\s+p0\s+p50\s+p90\s+p95\s+p99\s+p100$/);
    expect(lines.join("\n")).not.toContain("|");
    expect(lines[2]).toMatch(/^Raw\s+4\s+100\.0\s+250\.0\s+370\.0\s+385\.0\s+397\.0\s+400\.0$/);
    // Right-aligned numbers: every row ends at the same column as the header.
    const widths = new Set(lines.filter((line) => !line.startsWith("-")).map((line) => line.length));
    expect(widths.size).toBe(1);
  });
});

describe("ratioTable", () => {
  it("compares every other cell with the baseline, paired by round", () => {
    const lines = ratioTable(fixture(), "Raw", "initMs", "markdown").split("\n");
    expect(lines[0]).toBe("| cell | n pairs | p50 ratio [95% CI] | Δ p50 ms [95% CI] |");
    expect(lines).toHaveLength(2 + 3);
    const optimized = cells(lines[2] ?? "");
    expect(optimized[0]).toBe("Optimized");
    expect(optimized[1]).toBe("4");
    // Optimized is exactly half of Raw in every round: ratio 0.5 whatever the resample.
    expect(optimized[2]).toBe("0.50 [0.50, 0.50]");
    // Differences are -50, -100, -150, -200: median -125.
    expect(optimized[3]).toMatch(/^-125\.0 \[-\d+\.\d, -\d+\.\d\]$/);
    const bundled = cells(lines[3] ?? "");
    // Bundled has no round 2, so 3 pairs: 90/100, 180/200, 360/400 -> exactly 0.9.
    expect(bundled.slice(0, 3)).toEqual(["Bundled", "3", "0.90 [0.90, 0.90]"]);
    expect(cells(lines[4] ?? "")).toEqual(["Broken", "0", "–", "–"]);
  });

  it("works against another baseline and for E2E", () => {
    const lines = ratioTable(fixture(), "Optimized", "e2eMs", "markdown").split("\n");
    // Raw e2e / Optimized e2e: 300/150, 400/200, ... medians 450 / 225 = 2.
    expect(cells(lines[2] ?? "").slice(0, 3)).toEqual(["Raw", "4", "2.00 [2.00, 2.00]"]);
  });

  it("returns an empty string when the baseline is missing", () => {
    expect(ratioTable(fixture(), "Nope", "initMs", "markdown")).toBe("");
    expect(ratioTable(fixture(), "Nope", "initMs", "text")).toBe("");
  });
});

describe("floorTable", () => {
  /** Two example clients and their Floors: SsmParameter is 1.1× its Floor in every round, Secret 2×; Raw has no Floor. */
  function withFloors(): BenchResults {
    const floor = (name: string, floorOf: string, rows: Parameters<typeof cellResult>[1]): CellResult => ({ ...cellResult(name, rows), floorOf });
    const results = fixture();
    results.cells = [
      cellResult("SsmParameter", [
        [0, 110, 220, 5],
        [1, 220, 440, 5],
      ]),
      floor("SsmParameterFloor", "SsmParameter", [
        [0, 100, 200, 5],
        [1, 200, 400, 5],
      ]),
      cellResult("Secret", [
        [0, 200, 300, 5],
        [1, 300, 400, 5],
      ]),
      floor("SecretFloor", "Secret", [
        [0, 100, 150, 5],
        [1, 150, 200, 5],
      ]),
      cellResult("Raw", [[0, 500, 600, 5]]),
    ];
    return results;
  }

  it("compares each function with the Floor that names it (FloorOf), paired by round, and leaves out the rest", () => {
    const rows = floorTable(withFloors(), "initMs", "markdown").split("\n").slice(2).map(cells);
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ["SsmParameter", "2", "1.10 [1.10, 1.10]"],
      ["Secret", "2", "2.00 [2.00, 2.00]"],
    ]);
    // SsmParameter's rounds are 10 and 20 ms slower than its Floor's: the median difference is 15.
    expect(rows[0]![3]).toMatch(/^15\.0 \[\d+\.\d, \d+\.\d\]$/);
    expect(floorTable(withFloors(), "e2eMs", "text")).toMatch(/^Secret\s+2\s+2\.00 \[2\.00, 2\.00\]/m);
  });

  it("pairs a function with its Floor on the same runtime, in the same profile when the run measured the Floor in it", () => {
    const results = withFloors();
    const cell = (source: CellResult, profile: string, runtime: string): CellResult => ({
      ...source,
      name: `${source.function}/${profile}`,
      profile,
      runtime,
      functionName: `${source.function}-${profile}-${runtime}`,
    });
    const [ssm, ssmFloor] = results.cells;
    const slower = (source: CellResult): CellResult => ({
      ...source,
      samples: source.samples.map((sample) => ({ ...sample, initMs: sample.initMs * 2 })),
    });
    results.runtimes = ["node22", "deno"];
    results.cells = [
      cell(ssm!, "Warp", "node22"),
      cell(ssm!, "Bundled", "node22"),
      cell(ssmFloor!, "Warp", "node22"),
      cell(slower(ssmFloor!), "Optimized", "node22"),
      cell(slower(ssm!), "Warp", "deno"),
      cell(slower(ssmFloor!), "Optimized", "deno"),
    ];
    const rows = floorTable(results, "initMs", "markdown").split("\n").slice(2).map(cells);
    // Bundled has no Floor of its profile: it gets the first measured on its runtime (Warp's).
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ["SsmParameter/Warp (node22)", "2", "1.10 [1.10, 1.10]"],
      ["SsmParameter/Bundled (node22)", "2", "1.10 [1.10, 1.10]"],
      ["SsmParameter/Warp (deno)", "2", "1.10 [1.10, 1.10]"],
    ]);
  });

  it("is empty without a measured Floor, as in results written before schema 5", () => {
    expect(floorTable(fixture(), "initMs", "markdown")).toBe("");
    const results = withFloors();
    results.cells = results.cells.filter((v) => v.floorOf === undefined);
    expect(floorTable(results, "initMs", "text")).toBe("");
  });

  it("has its sections in report.md and the console summary, and only when there is a Floor", () => {
    const report = markdownReport(withFloors());
    expect(report).toContain("\n## Init Duration: each function vs its Floor\n");
    expect(report).toContain("\n## Cold E2E: each function vs its Floor\n");
    expect(report).toContain("| SsmParameter | 2 | 1.10 [1.10, 1.10] |");
    const summary = consoleSummary(withFloors());
    expect(summary).toMatch(/Init Duration: each function vs its Floor \(ratio = function \/ its Floor.*\)\ncell\s+n pairs/);
    expect(summary).toMatch(/^SsmParameter\s+2\s+1\.10 \[1\.10, 1\.10\]/m);
    expect(markdownReport(fixture())).not.toContain("vs its Floor");
    expect(consoleSummary(fixture())).not.toContain("vs its Floor");
  });
});

describe("warmTable", () => {
  it("shows the warm E2E p50 of non-null warm samples with their count", () => {
    const lines = warmTable(fixture(), "markdown").split("\n");
    expect(lines[0]).toBe("| cell | n | warm E2E p50 ms |");
    expect(cells(lines[2] ?? "")).toEqual(["Raw", "3", "12.0"]);
    expect(cells(lines[3] ?? "")).toEqual(["Optimized", "4", "5.5"]);
    expect(cells(lines[5] ?? "")).toEqual(["Broken", "0", "–"]);
  });
});

describe("failureTable", () => {
  it("counts failures per cell and phase with the first message of each error type", () => {
    const table = failureTable(fixture(), "markdown");
    const rows = table.split("\n").slice(2).map(cells);
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ["Bundled", "cold", "1"],
      ["Bundled", "warm", "1"],
      ["Broken", "update", "1"],
      ["Broken", "cold", "3"],
    ]);
    expect(rows[0]?.[3]).toBe("Runtime.InitError ×1: Cannot find module 'x' at require");
    expect(rows[3]?.[3]).toBe("Runtime.InitError ×2: first message; Runtime.ExitError ×1: exit 1");
    expect(table).not.toContain("second message");
    // The pipe in a message is escaped so the row keeps its columns.
    expect(table).toContain("update in progress \\| retry");
  });

  it("lists each cell that could not be built, with the first line of its build's error, as a build failure", () => {
    const results = { ...fixture(), notBuilt: [{ function: "PriceQuotes", profile: "Warp", message: "Warp cannot build PriceQuotes's V8 code cache: ..." }] };
    const rows = failureTable(results, "markdown").split("\n").slice(2).map(cells);
    expect(rows.at(-1)).toEqual(["PriceQuotes/Warp", "build", "1", "Warp cannot build PriceQuotes's V8 code cache: ..."]);
  });

  it("says so when nothing failed", () => {
    const results = fixture();
    for (const v of results.cells) v.failures = [];
    expect(failureTable(results, "markdown")).toBe("No failures.");
    expect(failureTable(results, "text")).toBe("No failures.");
  });
});

describe("markdownReport", () => {
  const report = markdownReport(fixture());

  it("has the title, run facts, explanation and chart link", () => {
    expect(report.startsWith("# ")).toBe(true);
    expect(report).toContain("2025-01-02T03:04:05.000Z");
    expect(report).toContain(
      "- Target: local (http://127.0.0.1:3001); network: DNS 5 ms per connection, RTT 2 ms; each new environment's code read from storage",
    );
    expect(report).toContain("Rounds: 4");
    expect(report).toContain("first request for an event");
    expect(report).toContain("![Init Duration per cell](chart.svg)");
  });

  it("contains both percentile tables, ratios vs Raw and Optimized for both metrics, warm and failures", () => {
    for (const heading of [
      "## Init Duration (ms)",
      "## Cold E2E (ms)",
      "## Init Duration vs Raw",
      "## Cold E2E vs Raw",
      "## Init Duration vs Optimized",
      "## Cold E2E vs Optimized",
      "## Warm E2E p50 (ms)",
      "## Failures",
      "## Versions",
      "## Machine",
    ]) {
      expect(report).toContain(`\n${heading}\n`);
    }
    expect(report).toContain("| Raw | 4 | 100.0 | 250.0 | 370.0 | 385.0 | 397.0 | 400.0 |");
    expect(report).toContain("| Raw | 4 | 300.0 | 450.0 | 570.0 | 585.0 | 597.0 | 600.0 |");
    expect(report).toContain("| node | 22.23.3 |");
    expect(report).toContain("Test CPU × 8");
    expect(report).toContain("16 GiB");
    expect(report.endsWith("\n")).toBe(true);
  });

  it("leaves out ratio sections whose baseline did not run", () => {
    const results = fixture();
    results.cells = results.cells.filter((v) => v.name !== "Optimized");
    const partial = markdownReport(results);
    expect(partial).toContain("## Init Duration vs Raw");
    expect(partial).not.toContain("vs Optimized");
  });
});

describe("consoleSummary", () => {
  it("prints text tables, ratios and failures without Markdown syntax", () => {
    const summary = consoleSummary(fixture());
    expect(summary).toMatch(/Init Duration \(ms\)\ntest\s+# of samples/);
    expect(summary).toMatch(/Cold E2E \(ms\)\ntest\s+# of samples/);
    expect(summary).toContain("Init Duration vs Raw");
    expect(summary).toContain("Cold E2E vs Optimized");
    expect(summary).toMatch(/Optimized\s+4\s+0\.50 \[0\.50, 0\.50\]/);
    expect(summary).toMatch(/Broken\s+cold\s+3\s+Runtime\.InitError ×2: first message/);
    expect(summary).not.toMatch(/^\| /m);
    expect(summary).not.toContain("rejected");
  });

  it("names each cell whose code cache V8 rejected, not only the report's versions", () => {
    const results = fixture();
    results.versions = { ...results.versions, "V8 code cache (Warp)": "rejected", "V8 code cache (Other)": "accepted" };
    expect(consoleSummary(results)).toContain(
      "V8 rejected the code cache of Warp: its Init Duration is a Warp compiling its chunk (the function's log says why; npx warpstart doctor names the cause)",
    );
  });
});

describe("a runtime matrix", () => {
  /** Raw and Optimized on node22 and deno: deno is 1.5× node22 in every round; Raw cannot run on deno. */
  function matrix(): BenchResults {
    const on = (runtime: string, result: CellResult): CellResult => ({ ...result, runtime, functionName: `${result.name}-${runtime}` });
    const results = fixture();
    results.runtimes = ["node22", "deno"];
    results.cells = [
      on(
        "node22",
        cellResult("Raw", [
          [0, 100, 110, 5],
          [1, 200, 210, 5],
        ]),
      ),
      on(
        "node22",
        cellResult("Optimized", [
          [0, 40, 50, 5],
          [1, 60, 70, 5],
        ]),
      ),
      on(
        "deno",
        cellResult("Raw", [], [{ round: 0, phase: "cold", errorType: "Runtime.InitError", message: 'Import "@aws-sdk/client-sts" not a dependency' }]),
      ),
      on(
        "deno",
        cellResult("Optimized", [
          [0, 60, 75, 5],
          [1, 90, 105, 5],
        ]),
      ),
    ];
    results.processStart = {
      tool: "hyperfine 1.15.0",
      runs: 10,
      warmup: 2,
      results: [
        { label: "Optimized (node22)", name: "Optimized", runtime: "node22", meanMs: 100, stddevMs: 5, medianMs: 99, minMs: 90, maxMs: 120, runs: 10 },
        { label: "Optimized (deno)", name: "Optimized", runtime: "deno", meanMs: 80, stddevMs: 4, medianMs: 79, minMs: 70, maxMs: 95, runs: 10 },
      ],
      failures: [{ label: "Raw (deno)", name: "Raw", runtime: "deno", message: "error: Uncaught TypeError" }],
    };
    return results;
  }

  it("labels every cell with its runtime and names each runtime's failures", () => {
    const lines = percentileTable(matrix(), "initMs", "text").split("\n");
    expect(lines.slice(2).map((line) => line.split(/\s{2,}/)[0])).toEqual(["Raw (node22)", "Optimized (node22)", "Raw (deno)", "Optimized (deno)"]);
    expect(failureTable(matrix(), "text")).toMatch(/^Raw \(deno\)\s+cold\s+1\s+Runtime\.InitError ×1: Import "@aws-sdk\/client-sts" not a dependency$/m);
  });

  it("shows functions × runtimes p50 at a glance, failed where no round succeeded", () => {
    const lines = matrixTable(matrix(), "initMs", "markdown").split("\n");
    expect(lines[0]).toBe("| function | node22 | deno |");
    expect(cells(lines[2] ?? "")).toEqual(["Raw", "150.0", "failed"]);
    expect(cells(lines[3] ?? "")).toEqual(["Optimized", "50.0", "75.0"]);
    expect(matrixTable(fixture(), "initMs", "markdown")).toBe("");
  });

  it("makes no matrix of a template that puts each function on its own runtime", () => {
    const results = fixture();
    results.runtimes = ["node20", "node22"];
    results.cells = [
      { ...cellResult("OnNode20", [[0, 90, 100, 5]]), runtime: "node20" },
      { ...cellResult("OnNode22", [[0, 80, 90, 5]]), runtime: "node22" },
    ];
    expect(matrixTable(results, "initMs", "text")).toBe("");
    const summary = consoleSummary(results);
    expect(summary).toContain("OnNode20 (node20)");
    expect(summary).toContain("Cold E2E (ms)");
    expect(summary).not.toContain("Runtime matrix");
  });

  it("compares each cell with the same function on the first runtime, and baselines within a runtime", () => {
    const byRuntime = runtimeRatioTable(matrix(), "node22", "initMs", "markdown").split("\n").slice(2).map(cells);
    expect(byRuntime.map((row) => row.slice(0, 3))).toEqual([
      ["Raw (deno)", "0", "–"],
      ["Optimized (deno)", "2", "1.50 [1.50, 1.50]"],
    ]);
    const vsOptimized = ratioTable(matrix(), "Optimized", "initMs", "markdown").split("\n").slice(2).map(cells);
    // Raw (node22) pairs with Optimized (node22): 100/40, 200/60 -> p50 ratio of the pairs; Raw (deno) has no samples.
    expect(vsOptimized.map((row) => row.slice(0, 2))).toEqual([
      ["Raw (node22)", "2"],
      ["Raw (deno)", "0"],
    ]);
  });

  it("renders hyperfine's process start with each runtime's ratio to the first, and the commands that failed", () => {
    const [table, failures] = processStartTable(matrix(), "markdown").split("\n\n");
    expect(table!.split("\n").slice(2).map(cells)).toEqual([
      ["Optimized (node22)", "100.0 ± 5.0", "99.0", "90.0", "120.0", "10", "1.00"],
      ["Optimized (deno)", "80.0 ± 4.0", "79.0", "70.0", "95.0", "10", "0.80"],
      ["Raw (deno)", "failed", "–", "–", "–", "0", "–"],
    ]);
    expect(failures).toBe("- Raw (deno) failed: error: Uncaught TypeError");
    expect(processStartTable(fixture(), "markdown")).toBe("");
  });

  it("puts the matrix, the runtime comparison and the process start in report.md and on the console", () => {
    const report = markdownReport(matrix());
    for (const heading of ["## Runtime matrix (p50, ms)", "## Init Duration vs the same function on node22", "## Process start (hyperfine)"])
      expect(report).toContain(`\n${heading}\n`);
    expect(report).toContain("- Runtimes: node22, deno");
    expect(report).toContain("hyperfine 1.15.0, 10 runs after 2 warm-up runs");
    const summary = consoleSummary(matrix());
    expect(summary).toMatch(/Runtime matrix: Init Duration p50 \(ms\)\nfunction\s+node22\s+deno/);
    expect(summary).toMatch(/Process start: start, import the handler, exit \(hyperfine 1\.15\.0\)/);
  });

  describe("readBenchResults", () => {
    it("reads a results.json as written (schema 6) unchanged", () => {
      const results = fixture();
      expect(readBenchResults(JSON.stringify(results))).toEqual(results);
    });

    it("reads the cells of schemas up to 5 from variants, and a process-start row's name from variant", () => {
      const { cells: written, processStart, ...rest } = matrix();
      const older = {
        ...rest,
        schema: 5,
        variants: written,
        processStart: {
          ...processStart!,
          results: processStart!.results.map(({ name, ...row }) => ({ ...row, variant: name })),
          failures: processStart!.failures.map(({ name, ...row }) => ({ ...row, variant: name })),
        },
      };
      expect(readBenchResults(JSON.stringify(older))).toEqual(matrix());
    });

    it("renders the report of a schema 5 file: docs/corpus/results.json (one function's cells: each ratio table bootstraps every pair)", () => {
      const results = readBenchResults(readFileSync(join(DEMO_ROOT, "docs/corpus/results.json"), "utf8"));
      expect(results.cells.length).toBeGreaterThan(0);
      const ordersApi = { ...results, cells: results.cells.filter((cell) => cell.function === "OrdersApi") };
      expect(markdownReport(ordersApi)).toContain("| OrdersApi/Warp | 20 |");
    });
  });
});

describe("wrapperTable", () => {
  /** Warp and Floor, each also started through the exec wrapper (bench --exec-wrapper): wrapped Warp is 0.8× Warp, wrapped Floor 0.9× Floor. */
  function withWrapped(): BenchResults {
    const results = fixture();
    const build = (fn: string, profile: string, wrapped: boolean, initMs: [number, number], floorOf?: string): CellResult => ({
      ...cellResult(wrapped ? `${fn}+wrapper` : fn, [
        [0, initMs[0], initMs[0] + 300, 5],
        [1, initMs[1], initMs[1] + 300, 5],
      ]),
      function: fn,
      profile,
      ...(wrapped ? { execWrapper: true } : {}),
      ...(floorOf ? { floorOf } : {}),
    });
    results.cells = [
      build("Warp", "Warp", false, [100, 200]),
      build("Warp", "Warp", true, [80, 160]),
      build("Floor", "Optimized", false, [90, 180], "Warp"),
      build("Floor", "Optimized", true, [81, 162]),
    ];
    return results;
  }

  it("compares each wrapped build with the same build started as the runtime starts it, and nothing else", () => {
    const rows = wrapperTable(withWrapped(), "initMs", "markdown").split("\n").slice(2).map(cells);
    expect(rows.map((row) => row.slice(0, 3))).toEqual([
      ["Warp+wrapper", "2", "0.80 [0.80, 0.80]"],
      ["Floor+wrapper", "2", "0.90 [0.90, 0.90]"],
    ]);
    expect(wrapperTable(fixture(), "initMs", "text")).toBe("");
  });

  it("keeps wrapped builds out of the profile and Floor comparisons' baselines", () => {
    const results = withWrapped();
    // Floor+wrapper is not "Optimized" for Floor; wrapped Warp is measured against the Floor as the runtime starts it.
    expect(ratioTable(results, "Optimized", "initMs", "text")).toBe("");
    const floorRows = floorTable(results, "initMs", "markdown").split("\n").slice(2).map(cells);
    expect(floorRows.map((row) => row.slice(0, 3))).toEqual([
      ["Warp", "2", "1.11 [1.11, 1.11]"],
      ["Warp+wrapper", "2", "0.89 [0.89, 0.89]"],
    ]);
  });
});
