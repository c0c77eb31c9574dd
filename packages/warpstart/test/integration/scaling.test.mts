// How the lab scales, freezes and provisions environments, as Lambda does, through its HTTP API
// and Lambda API: a request takes an idle environment or starts one; beyond the concurrency
// limit it gets 429; idle environments are reclaimed; idle ones are frozen (SIGSTOP).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MASKED_ACCOUNT_ID } from "../../../../src/functions/identity/identity.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { eventually } from "../support/eventually.mts";
import { invokeLogged } from "../support/lab.mts";

const FIXTURES = join(import.meta.dirname, "../fixtures/lab/template.yaml");

/** A process's state letter in /proc (T: stopped, as SIGSTOP leaves it). */
const processState = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0]!;

const invoke = invokeLogged;

describe("the HTTP API", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ template: FIXTURES, concurrencyLimit: 2 });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("sends a payload format 2.0 event and maps statusCode, headers, cookies and body back", async () => {
    const response = await fetch(`${lab.apiUrl}/sleep?ms=1&x=1&x=2`, { headers: { cookie: "session=abc", "x-trace": "t1" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-served-by")).toMatch(/^\d+$/);
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.headers.get("apigw-requestid")).toBeTruthy();
    expect(await response.json()).toMatchObject({ initType: "on-demand" });

    const echoed = (await (await fetch(`${lab.apiUrl}/echo?name=lab`, { headers: { cookie: "session=abc" } })).json()) as {
      event: Record<string, unknown> & { headers: Record<string, string> };
    };
    expect(echoed.event).toMatchObject({
      version: "2.0",
      routeKey: "GET /echo",
      rawPath: "/echo",
      rawQueryString: "name=lab",
      cookies: ["session=abc"],
      queryStringParameters: { name: "lab" },
      requestContext: { http: { method: "GET", path: "/echo" }, stage: "$default", routeKey: "GET /echo" },
      isBase64Encoded: false,
    });
    expect(echoed.event.headers.cookie).toBeUndefined();
  });

  it("answers 404 for a route the template does not have", async () => {
    const response = await fetch(`${lab.apiUrl}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "Not Found" });
  });

  it("answers 500 Internal server error when the function fails", async () => {
    const response = await fetch(`${lab.apiUrl}/throws`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: "Internal server error" });
  });

  it("starts one environment per concurrent request, and answers 429 beyond the concurrency limit", async () => {
    const responses = await Promise.all([1, 2, 3].map(() => fetch(`${lab.apiUrl}/sleep?ms=1500`)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 429]);
    const throttled = responses.find((response) => response.status === 429)!;
    expect(throttled.headers.get("x-amzn-errortype")).toBe("TooManyRequestsException");
    expect(await throttled.json()).toEqual({ message: "Too Many Requests" });
    const pids = await Promise.all(responses.filter((response) => response.ok).map(async (response) => ((await response.json()) as { pid: number }).pid));
    expect(new Set(pids).size).toBe(2);
    expect(lab.lambda.environments("Sleeper").idle).toBeGreaterThanOrEqual(2);
  });
});

describe("freeze and idle reclaim", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ template: FIXTURES, idleTimeoutMs: 3000 });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("freezes an idle environment: its timers do not fire until the next invoke", async () => {
    const first = (await invoke(lab, "Ticker")).payload as { ticks: number; pid: number };
    await eventually("Ticker's environment is frozen", () => lab.lambda.environments("Ticker").frozen === 1);
    // While a 50 ms timer of this process, which nothing freezes, fires 20 times (as Ticker's would
    // if it ran, on this machine as busy as it is), Ticker's process stays stopped.
    const states = new Set<string>();
    let witnessTicks = 0;
    const witness = setInterval(() => witnessTicks++, 50);
    try {
      await eventually("an unfrozen 50 ms timer has fired 20 times", () => {
        states.add(processState(first.pid));
        return witnessTicks >= 20;
      });
    } finally {
      clearInterval(witness);
    }
    expect([...states]).toEqual(["T"]);
    const second = (await invoke(lab, "Ticker")).payload as { ticks: number; pid: number };
    expect(second.pid).toBe(first.pid); // the same environment, thawed
    expect(second.ticks - first.ticks).toBeLessThan(5);
  });

  it("reclaims a function's idle environments at once when asked (the bench retires each measured cell)", async () => {
    const warm = (await invoke(lab, "Echo")).payload as { pid: number };
    expect(lab.lambda.environments("Echo").idle).toBe(1);
    await lab.lambda.reclaimIdle("Echo");
    expect(lab.lambda.environments("Echo").idle).toBe(0);
    expect(((await invoke(lab, "Echo")).payload as { pid: number }).pid).not.toBe(warm.pid);
  });

  it("reclaims an environment left idle past the idle timeout; the next invoke is cold", async () => {
    const warm = await invoke(lab, "Echo");
    expect(lab.lambda.environments("Echo").idle).toBe(1);
    await eventually("Echo's idle environment is reclaimed", () => lab.lambda.environments("Echo").idle === 0);
    const next = await invoke(lab, "Echo");
    expect(warm.report).not.toBeNull();
    expect(next.report!.initDurationMs).not.toBeNull();
    expect(next.payload.invocations).toBe(1);
  });
});

describe("provisioned concurrency", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ parameterOverrides: { ProvisionedConcurrency: "1" } });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("initializes the environments before the first request, which they serve warm", async () => {
    for (const name of lab.lambda.functionNames) expect(lab.lambda.environments(name)).toMatchObject({ provisioned: 1, idle: 1 });
    const response = await fetch(`${lab.apiUrl}/optimized`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ account: MASKED_ACCOUNT_ID, coldstart: true, function: "Optimized" });
    // Provisioned concurrency is the alias's (AutoPublishAlias: live), as the HTTP API invokes it; $LATEST runs on demand.
    const { payload, report } = await invoke(lab, "Warp:live");
    expect(JSON.parse(payload.body)).toMatchObject({ function: "Warp", codeCache: "accepted", initializationType: "provisioned-concurrency" });
    expect(report!.initDurationMs).toBeNull(); // no INIT in the invoke: it happened before
  });

  it.each(["Cjs", "Optimized"])("serves %s correctly from a provisioned environment (CommonJS and top-level await alike)", async (variant) => {
    const response = await fetch(`${lab.apiUrl}/${variant.toLowerCase()}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ function: variant, account: MASKED_ACCOUNT_ID, initializationType: "provisioned-concurrency" });
  });
});
