// The runtime matrix: every function of the built template on nodejs24.x and on Deno and Bun as
// custom runtimes (the layers `sam build` made, with this machine's binaries), answering with the
// same response shape as on nodejs22.x; Bun's startup cache, which a nodejs22.x artifact does not
// ship, warmed for the lab when it runs the function on Bun; and `npm run bench -- --runtimes` over
// those and nodejs20.x (each function the pipeline builds, built again for each Node.js runtime),
// with hyperfine's process-start comparison.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MASKED_ACCOUNT_ID } from "../../../../src/functions/identity/identity.mts";
import { type BenchResults, readBenchResults } from "../../bench/results.mts";
import { builtHandlerFile } from "../../builder/handler.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { labOverlayOf } from "../../emulation/function-environment.mts";
import { parseRuntimes } from "../../lab/functions.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { bench } from "../support/bench.mts";
import { DEMO_BUILD_DIR } from "../support/demo.mts";
import { builtFunctions, eventOf, FUNCTION_NAMES, invokeLogged, STS_FUNCTION_NAMES } from "../support/lab.mts";

/** What each runtime of the matrix says it is: the versions the project pins. */
const whatRuns = { node24: `node ${RUNTIMES.node24.version}`, deno: `deno ${RUNTIMES.deno.version}`, bun: `bun ${RUNTIMES.bun.version}` };

describe("the template's functions on every runtime", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ runtimes: parseRuntimes("node22,node24,deno,bun") });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  const cells = STS_FUNCTION_NAMES.filter((variant) => variant !== "Raw").flatMap((variant) =>
    (["node24", "deno", "bun"] as const).map((runtime) => [variant, runtime] as const),
  );

  it.each(cells)("%s on %s answers cold with the same response shape as on node22", async (variant, runtime) => {
    const reference = await invokeLogged(lab, lab.functionOn(variant, "node22")!, eventOf(variant));
    const cold = await invokeLogged(lab, lab.functionOn(variant, runtime)!, eventOf(variant));

    expect(cold.functionError).toBeUndefined();
    expect(cold.report).toMatchObject({ initDurationMs: expect.any(Number) });
    expect(cold.payload).toMatchObject({ statusCode: 200, headers: { "content-type": "application/json" } });
    const body = JSON.parse(cold.payload.body);
    expect(Object.keys(body).sort()).toEqual(Object.keys(JSON.parse(reference.payload.body)).sort());
    expect(body).toMatchObject({
      coldstart: true,
      function: variant,
      account: MASKED_ACCOUNT_ID,
      runtime: whatRuns[runtime],
      lambdaRequestId: cold.report!.requestId,
    });
    expect(cold.payload.body).not.toContain("123456789012");
  });

  it.each(["node24", "deno", "bun"])("Hello, the empty handler, answers cold on %s", async (runtime) => {
    const cold = await invokeLogged(lab, lab.functionOn("Hello", runtime)!, eventOf("Hello"));
    expect(cold.functionError).toBeUndefined();
    expect(cold.report).toMatchObject({ initDurationMs: expect.any(Number) });
    expect(cold.payload).toEqual({ statusCode: 200, body: JSON.stringify({ coldstart: true, initializationType: "on-demand" }) });
  });

  it.each(["deno", "bun"])("Raw fails INIT on %s, whose custom runtime ships no SDK, and says which import", async (runtime) => {
    const { functionError, payload } = await invokeLogged(lab, lab.functionOn("Raw", runtime)!, eventOf("Raw"));
    expect(functionError).toBe("Unhandled");
    expect(payload).toMatchObject({ errorType: "Runtime.InitError", errorMessage: expect.stringContaining("@aws-sdk/client-sts") });
  });

  it("runs Raw on node24 with the runtime's SDK copy, as nodejs24.x ships one", async () => {
    const { functionError, payload } = await invokeLogged(lab, lab.functionOn("Raw", "node24")!, eventOf("Raw"));
    expect(functionError).toBeUndefined();
    expect(JSON.parse(payload.body)).toMatchObject({ function: "Raw", sdkVersion: "provided by the runtime", runtime: whatRuns.node24 });
  });

  it("warms Bun's transpiler cache for the lab, beside an artifact built for nodejs22.x, which ships none", () => {
    const artifact = (name: string) => {
      const fn = builtFunctions().find((candidate) => candidate.logicalId === name)!;
      return readFileSync(join(fn.codeDir, builtHandlerFile(fn)), "utf8");
    };
    const name = FUNCTION_NAMES.find((candidate) => Buffer.byteLength(artifact(candidate)) >= 50 * 1024)!; // Bun caches sources of 50 KB and more
    const cache = RUNTIMES.bun.startupCache.dir;
    expect(existsSync(join(DEMO_BUILD_DIR, name, cache))).toBe(false);
    const overlay = join(labOverlayOf(join(DEMO_BUILD_DIR, name)), cache);
    const largest = Math.max(...readdirSync(overlay).map((file) => statSync(join(overlay, file)).size));
    expect(largest).toBeGreaterThan(Buffer.byteLength(artifact(name)));
  });
});

describe("npm run bench -- --runtimes node22,node24,node20,deno,bun --rounds 2", () => {
  const out = mkdtempSync(join(tmpdir(), "warpstart-matrix-"));
  const runtimes = ["node22", "node24", "node20", "deno", "bun"];
  let run: ReturnType<typeof bench>;
  let results: BenchResults;
  beforeAll(() => {
    run = bench("--no-build", "--rounds", "2", "--runtimes", runtimes.join(","), "--out", out);
    results = readBenchResults(readFileSync(join(out, "results.json"), "utf8"));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("reports every function × runtime cell, each naming its runtime; cells that cannot run as failed, with the error", () => {
    expect(run.status).toBe(0);
    expect(results.runtimes).toEqual(runtimes);
    expect(results.cells.map((cell) => `${cell.name} ${cell.runtime}`)).toEqual(
      runtimes.flatMap((runtime) => FUNCTION_NAMES.map((name) => `${name} ${runtime}`)),
    );
    for (const cell of results.cells) {
      // A custom runtime ships no SDK for Raw to import; every other cell measured both rounds.
      if (cell.name === "Raw" && (cell.runtime === "deno" || cell.runtime === "bun")) {
        expect(cell.samples).toEqual([]);
        expect(cell.failures).toEqual(
          [0, 1].map((round) =>
            expect.objectContaining({ round, phase: "cold", errorType: "Runtime.InitError", message: expect.stringContaining("@aws-sdk/client-sts") }),
          ),
        );
      } else {
        expect({ cell: `${cell.name} ${cell.runtime}`, failures: cell.failures, rounds: cell.samples.map((sample) => sample.round) }).toEqual({
          cell: `${cell.name} ${cell.runtime}`,
          failures: [],
          rounds: [0, 1],
        });
      }
    }
    expect(results.versions).toMatchObject({
      "runtime node24": expect.stringMatching(/^24\./),
      "node24 reports": expect.stringMatching(/^node 24\./),
      "deno reports": expect.stringMatching(/^deno 2\./),
      "bun reports": expect.stringMatching(/^bun 1\./),
      "node20 reports": expect.stringMatching(/^node 20\./),
      // Warp built again for each Node.js runtime, its cache made by that Node: not the nodejs22.x build's, which V8 would reject.
      "V8 code cache (Warp (node24))": "accepted",
      "V8 code cache (Warp (node20))": "accepted",
    });
  });

  it("times each runtime starting, importing each handler and exiting with hyperfine, beside the Lambda-style figures", () => {
    const start = results.processStart!;
    expect(start.tool).toMatch(/^hyperfine \d/);
    const empty = runtimes.map((runtime) => `Empty (${runtime})`);
    expect([...start.results.map((row) => row.label), ...start.failures.map((row) => row.label)].sort()).toEqual(
      [...empty, ...results.cells.map((cell) => `${cell.name} (${cell.runtime})`)].sort(),
    );
    expect(start.failures.map((row) => row.label).sort()).toEqual(["Raw (bun)", "Raw (deno)"]);
    for (const row of start.results) expect(row).toMatchObject({ runs: start.runs, meanMs: expect.any(Number) });
    const exported = JSON.parse(readFileSync(join(out, "hyperfine.json"), "utf8")) as { results: Array<{ command: string; times: number[] }> };
    expect(exported.results.map((row) => row.command)).toEqual(start.results.map((row) => row.label));
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("## Runtime matrix (p50, ms)");
    expect(report).toContain("| function | node22 | node24 | node20 | deno | bun |");
    expect(report).toMatch(/^\| Raw \| [\d.]+ \| [\d.]+ \| [\d.]+ \| failed \| failed \|$/m);
    expect(report).toContain("## Process start (hyperfine)");
    expect(run.stdout).toMatch(/^Runtime matrix: Init Duration p50 \(ms\)$/m);
  });
});
