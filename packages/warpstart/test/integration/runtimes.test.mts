// The project's Runtime API client under a runtime given by path (Node 22 itself, as a custom
// runtime), and the errors a user meets when a runtime is missing. The runtime matrix (nodejs24.x,
// Deno, Bun): test/slow/runtime-matrix.test.mts.
import { join } from "node:path";
import { NODE22, PACKAGE_ROOT, setupHint } from "../../core/paths.mts";
import { RUNTIMES, runtimeNamed } from "../../core/runtimes.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { invokeLogged } from "../support/lab.mts";

describe("a runtime given by path, running the project's Runtime API client", () => {
  let lab: Lab;
  beforeAll(async () => {
    // Node 22 itself as a custom runtime: `node client.mjs` serves the emulator's failure fixtures.
    lab = await startLab({ template: join(PACKAGE_ROOT, "test/fixtures/lab/template.yaml"), parameterOverrides: {}, runtimes: [runtimeNamed(NODE22)] });
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
      `deno is not installed: /nonexistent/deno is missing; ${setupHint("runtimes")}.`,
    );
    await expect(startLab({ runtimes: [runtimeNamed("/opt/llrt/llrt")] })).rejects.toThrow(
      "llrt is not installed: /opt/llrt/llrt is missing; give the path of an installed runtime's binary (e.g. the llrt of an LLRT release).",
    );
  });
});
