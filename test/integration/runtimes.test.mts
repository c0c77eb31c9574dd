// The runtime matrix through the emulator: every function on nodejs24.x and on Deno and Bun as
// custom runtimes (the layers `sam build` made, with this machine's binaries), answering with
// the same response shape as on nodejs22.x; the project's Runtime API client under a runtime
// given by path; and the errors a user meets when a runtime is missing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE22, PROJECT_ROOT } from "../../core/paths.mts";
import { RUNTIMES, runtimeNamed } from "../../core/runtimes.mts";
import { parseRuntimes } from "../../lab/functions.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { MASKED_ACCOUNT_ID } from "../../src/functions/identity/identity.mts";
import { eventOf, invokeLogged, STS_FUNCTION_NAMES } from "../support/lab.mts";

const version = (pkg: string) =>
  (JSON.parse(readFileSync(join(PROJECT_ROOT, "tools/runtimes/node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;

describe("the template's functions on every runtime", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ runtimes: parseRuntimes("node22,node24,deno,bun") });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  const whatRuns = { node24: `node ${version("node")}`, deno: `deno ${version("deno")}`, bun: `bun ${version("bun")}` };
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
});

describe("a runtime given by path, running the project's Runtime API client", () => {
  let lab: Lab;
  beforeAll(async () => {
    // Node 22 itself as a custom runtime: `node client.mjs` serves the emulator's failure fixtures.
    lab = await startLab({ template: join(PROJECT_ROOT, "test/fixtures/lab/template.yaml"), parameterOverrides: {}, runtimes: [runtimeNamed(NODE22)] });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("hands the handler the event and a context with the request id", async () => {
    const { functionError, payload, report } = await invokeLogged(lab, "Echo-node", { name: "x" });
    expect(functionError).toBeUndefined();
    expect(payload).toMatchObject({ event: { name: "x" }, invocations: 1, requestId: report!.requestId });
  });

  it("reports a handler's error with its type and message, as the managed runtime does", async () => {
    const managed = await invokeLogged(lab, "Throws", {});
    const custom = await invokeLogged(lab, "Throws-node", {});
    expect(custom.functionError).toBe("Unhandled");
    expect(custom.payload).toMatchObject({ errorType: managed.payload.errorType, errorMessage: managed.payload.errorMessage });
    expect(custom.payload.stackTrace).toEqual(expect.arrayContaining([expect.stringContaining("index.mjs")]));
  });

  it("reports a process that exits during INIT as Runtime.ExitError", async () => {
    const { payload } = await invokeLogged(lab, "ExitsAtInit-node", {});
    expect(payload).toEqual({ errorType: "Runtime.ExitError", errorMessage: "Runtime exited with error: exit status 2" });
  });
});

describe("a runtime that is not installed", () => {
  it("stops the lab before it starts, naming what to install", async () => {
    await expect(startLab({ runtimes: [{ ...RUNTIMES.deno, hostBinary: "/nonexistent/deno" }] })).rejects.toThrow(
      "deno is not installed: /nonexistent/deno is missing; run `bash scripts/setup.sh` (npm run bench and npm test run it for you).",
    );
    await expect(startLab({ runtimes: [runtimeNamed("/opt/llrt/llrt")] })).rejects.toThrow(
      "llrt is not installed: /opt/llrt/llrt is missing; give the path of an installed runtime's binary (e.g. the llrt of an LLRT release).",
    );
  });
});
