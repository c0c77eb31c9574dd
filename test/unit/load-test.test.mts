// load_test/: the scenarios cover the template's routes, phases scale to --duration, and
// Artillery's report becomes the per-variant summary.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { PROJECT_ROOT } from "../../lab/paths.mts";
import { templateFunctions } from "../../lab/template.mts";
import { scaledConfig, summarize } from "../../load_test/run.mts";

describe("load_test/config.yaml", () => {
  const config = parse(readFileSync(join(PROJECT_ROOT, "load_test/config.yaml"), "utf8"));

  it("has one scenario per HTTP API route of template.yaml, named after its function", () => {
    const routes = templateFunctions(join(PROJECT_ROOT, "template.yaml")).map((fn) => ({ name: fn.logicalId, url: fn.httpPath }));
    const scenarios = config.scenarios.map((scenario: any) => ({ name: scenario.name, url: scenario.flow[0].get.url }));
    expect(scenarios).toEqual(routes);
    for (const scenario of config.scenarios) expect(scenario.flow[0].get).toMatchObject({ name: scenario.name, afterResponse: "countColdStarts" });
  });

  it("fails a run on errors or a slow p99 (ensure)", () => {
    expect(config.config.ensure.conditions).toContainEqual({ expression: "vusers.failed == 0", strict: true });
    expect(config.config.ensure.thresholds[0]).toHaveProperty(["http.response_time.p99"]);
  });

  it.each([6, 40, 600])("scales the phases to last %i seconds in all", (seconds) => {
    const phases = scaledConfig(seconds).config.phases as { duration: number }[];
    const total = phases.reduce((sum, phase) => sum + phase.duration, 0);
    expect(Math.abs(total - seconds)).toBeLessThanOrEqual(phases.length);
    expect(phases.every((phase) => phase.duration >= 1)).toBe(true);
  });
});

describe("summarize", () => {
  it("counts requests, errors, cold starts and init types per variant, with latency percentiles", () => {
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
      Raw: { requests: 3, errors: 0, coldStarts: 0, initializationTypes: {}, latencyMs: { p50: null, p95: null, p99: null }, firstRequestMs: { n: 0, p50: null, p99: null } },
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
