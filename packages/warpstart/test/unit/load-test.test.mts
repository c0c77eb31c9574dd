// load_test/: a scenario per route of the template, phases scaled to --duration, and Artillery's
// report made into the per-function summary.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ensureArtillery, parseChecks, type RunSummary, scaledConfig, scenarioFileOf, summarize, table } from "../../cli/load.mts";
import { PACKAGE_ROOT, setupHint } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { sam } from "../../lab/sam.mts";
import { DEMO_ROOT, DEMO_TEMPLATE, EXAMPLES_TEMPLATE } from "../support/demo.mts";
import { DEMO_FUNCTIONS } from "../support/demo-functions.mts";
import { loadScenarioChecks } from "../support/template-checks.mts";

it("runs the app's own load_test/config.yaml beside its template (the demo's), else the package's", () => {
  expect(scenarioFileOf(DEMO_TEMPLATE)).toBe(join(DEMO_ROOT, "load_test/config.yaml"));
  expect(scenarioFileOf(EXAMPLES_TEMPLATE)).toBe(join(PACKAGE_ROOT, "load_test/config.yaml"));
});

describe("load_test/config.yaml", () => {
  const config = parse(readFileSync(join(PACKAGE_ROOT, "load_test/config.yaml"), "utf8"));

  // Also run on a copy of template.yaml with a user's function added (test/slow/user-function.test.mts).
  loadScenarioChecks(DEMO_TEMPLATE, DEMO_FUNCTIONS);
  loadScenarioChecks(
    EXAMPLES_TEMPLATE,
    readTemplate(EXAMPLES_TEMPLATE).functions.map((fn) => fn.logicalId),
  );

  it("leaves the scenarios to the template's routes", () => {
    expect(config.scenarios).toBeUndefined();
  });

  it("says so when a template has no route to load", () => {
    expect(() => scaledConfig(join(PACKAGE_ROOT, "test/fixtures/sam-apps/no-routes/template.yaml"), 6)).toThrow(
      "has no function with an HttpApi GET route to load",
    );
  });

  it("fails a run on errors or a slow p99 (ensure)", () => {
    expect(config.config.ensure.conditions).toContainEqual({ expression: "vusers.failed == 0", strict: true });
    expect(config.config.ensure.thresholds[0]).toHaveProperty(["http.response_time.p99"]);
  });

  it("replaces the p99 threshold with --max-p99, or drops it with off, keeping the no-failed-request condition", () => {
    const p99 = (maxP99?: number | "off") =>
      (scaledConfig(DEMO_TEMPLATE, 6, maxP99).config.ensure.thresholds as Record<string, number>[]).filter((t) => "http.response_time.p99" in t);
    expect(p99()).toEqual(config.config.ensure.thresholds);
    expect(p99(250)).toEqual([{ "http.response_time.p99": 250 }]);
    expect(p99("off")).toEqual([]);
    expect(scaledConfig(DEMO_TEMPLATE, 6, "off").config.ensure.conditions).toEqual(config.config.ensure.conditions);
  });

  it.each([6, 40, 600])("scales the phases to last %i seconds in all", (seconds) => {
    const phases = scaledConfig(DEMO_TEMPLATE, seconds).config.phases as { duration: number }[];
    const total = phases.reduce((sum, phase) => sum + phase.duration, 0);
    expect(Math.abs(total - seconds)).toBeLessThanOrEqual(phases.length);
    expect(phases.every((phase) => phase.duration >= 1)).toBe(true);
  });
});

describe("summarize", () => {
  it("counts requests, errors, cold starts and init types per function, with latency percentiles", () => {
    const report = {
      aggregate: {
        counters: {
          "vusers.created_by_name.Warp": 10,
          "plugins.metrics-by-endpoint.Warp.codes.200": 9,
          "warpstart.Warp.cold_starts": 2,
          "warpstart.Warp.init_type.on-demand": 7,
          "warpstart.Warp.init_type.provisioned-concurrency": 2,
          "vusers.created_by_name.Raw": 3,
          "plugins.metrics-by-endpoint.Raw.codes.200": 3,
        },
        summaries: {
          "warpstart.Warp.response_ms": { p50: 3, p95: 9, p99: 120, count: 9 },
          "warpstart.Warp.first_request_ms": { p50: 100, p99: 120, count: 2 },
        },
      },
    };
    expect(summarize(report)).toEqual({
      Raw: {
        requests: 3,
        errors: 0,
        coldStarts: 0,
        initializationTypes: {},
        latencyMs: { p50: null, p95: null, p99: null },
        firstRequestMs: { n: 0, p50: null, p99: null },
      },
      Warp: {
        requests: 10,
        errors: 1,
        coldStarts: 2,
        initializationTypes: { "on-demand": 7, "provisioned-concurrency": 2 },
        latencyMs: { p50: 3, p95: 9, p99: 120 },
        firstRequestMs: { n: 2, p50: 100, p99: 120 },
      },
    });
  });
});

describe("the verdict of a run", () => {
  // as Artillery's ensure plugin prints its checks at the end of a run (colours when on a terminal)
  const output =
    "All VUs finished.\nSummary report\n\nChecks:\n\u001b[32mok\u001b[39m: vusers.failed == 0\n\u001b[31mfail\u001b[39m: http.response_time.p99 < 1\n";

  it("reads Artillery's checks from its output", () => {
    expect(parseChecks(output)).toEqual([
      { expression: "vusers.failed == 0", passed: true },
      { expression: "http.response_time.p99 < 1", passed: false },
    ]);
    expect(parseChecks("Summary report\n")).toEqual([]);
  });

  it("names the failed checks above the table", () => {
    const run: RunSummary = { provisionedConcurrency: 0, target: "http://127.0.0.1:1", thresholdsPassed: false, checks: parseChecks(output), functions: {} };
    expect(table(run).split("\n")[0]).toBe("provisioned concurrency: 0   thresholds: FAILED (http.response_time.p99 < 1)");
    expect(table({ ...run, thresholdsPassed: true, checks: [{ expression: "vusers.failed == 0", passed: true }] }).split("\n")[0]).toBe(
      "provisioned concurrency: 0   thresholds: passed",
    );
  });
});

describe("a missing tool", () => {
  it("says how to install Artillery", () => {
    expect(() => ensureArtillery("/nonexistent/artillery")).toThrow(`Artillery is not installed: /nonexistent/artillery is missing; ${setupHint("artillery")}`);
  });

  it("says how to install SAM CLI", async () => {
    await expect(sam(["--version"], { bin: "/nonexistent/bin/sam" })).rejects.toThrow(
      "SAM CLI not found at /nonexistent/bin/sam: install SAM CLI, or remove it from PATH to let warpstart install its own.",
    );
  });
});
