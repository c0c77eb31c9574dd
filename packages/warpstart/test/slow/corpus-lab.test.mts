// The corpus of real-world functions (test/fixtures/real-functions) in the lab: each function
// built by `sam build` in its own profile and here as Warp, cold-started with the event its
// trigger sends (the app's events/<LogicalId>.json where a handler needs a payload of its own),
// answers as its handler does on Lambda; Warp's cache is accepted; the function whose INIT calls
// a host beyond AWS fails its INIT, and its log names that host.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { builtTemplateOf, PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate, type TemplateFunction } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { samBuild } from "../../lab/sam.mts";
import { CACHE_REJECTED } from "../../src/contract.mts";
import { forceColdStart, invokeLogged } from "../support/lab.mts";

const TEMPLATE = join(PACKAGE_ROOT, "test/fixtures/real-functions/template.yaml");

/** What each function answers its event with; PriceQuotes's INIT cannot run here (nor PriceQuotesWarp's, corpus.test.mts). */
const ANSWERS: Record<string, unknown> = {
  OrdersApi: expect.objectContaining({ statusCode: 201, body: expect.stringContaining('"customerId":"customer-1001"') }),
  PartnerApiSettings: { statusCode: 200, body: JSON.stringify({ partnerApiUrl: "https://partner.example.com/v2", authenticatedAs: "orders-service" }) },
  SubscriptionPayments: expect.objectContaining({ statusCode: 200, body: expect.stringContaining('"message":"success"') }),
  OrderQueueProcessor: { batchItemFailures: [] },
  ItemsApi: { statusCode: 200 },
  ContactForm: expect.objectContaining({ statusCode: 201, body: expect.stringMatching(/^\{"id":"[0-9a-f-]{36}"\}$/) }),
  EsModuleBenchmark: { statusCode: 200, body: "You have successfully retrieved a parameter from SSM!" },
  OrdersAuditLog: null,
  OrderPlacedValidator: expect.objectContaining({ orderId: "3f2c8a3e-5d55-4c1e-9a57-0d9c1b7f0c11", total: 25.8 }),
  UploadLinks: [expect.objectContaining({ key: "test/key", url: expect.stringContaining("X-Amz-Signature=") })],
  DailyOrdersReport: expect.objectContaining({ FailedEntryCount: 0 }),
  ReceiptWriter: "Success",
  // The carrier's API is refused as Lambda's network would never refuse it: INIT goes on with the flat rates.
  ShippingRates: expect.objectContaining({ statusCode: 201, body: expect.stringMatching(/"country":"DE","weightKg":2,"price":9\.8,"source":"flat"/) }),
};
const NO_WARP = new Set(["PriceQuotes", "PriceQuotesWarp"]);

const template = readTemplate(TEMPLATE);
let lab: Lab;
let scratch: string;
beforeAll(async () => {
  await samBuild({ template: TEMPLATE, quiet: true });
  const built = readTemplate(builtTemplateOf(TEMPLATE));
  scratch = mkdtempSync(join(tmpdir(), "warpstart-real-functions-lab-"));
  const warp: TemplateFunction[] = [];
  for (const fn of built.functions.filter(({ logicalId }) => !NO_WARP.has(logicalId))) {
    const codeDir = join(scratch, fn.logicalId);
    await buildFunction(functionBuild(template, fn.logicalId, "Warp"), codeDir, { initServices: ownLocalAws });
    warp.push({ ...fn, logicalId: `${fn.logicalId}-Warp`, codeDir });
  }
  lab = await startLab({ template: builtTemplateOf(TEMPLATE), extraFunctions: warp });
}, 900_000);
afterAll(async () => {
  await lab?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The functions whose INIT needs api.example.com, which the lab refuses. */
const INIT_BEYOND_AWS = ["PriceQuotes", "PriceQuotesWarp"];
/** The one whose INIT goes on without the host it was refused. */
const REFUSED = { ShippingRates: "rates.carrier.example.com:443" } as Record<string, string>;

it("the answers name every function of the corpus but those whose INIT needs a host beyond AWS", () => {
  expect(Object.keys(ANSWERS).sort()).toEqual(
    template.functions
      .map((fn) => fn.logicalId)
      .filter((id) => !INIT_BEYOND_AWS.includes(id))
      .sort(),
  );
});

const CASES = Object.keys(ANSWERS).flatMap((logicalId) => [
  { logicalId, served: logicalId, profile: "its own profile" },
  ...(NO_WARP.has(logicalId) ? [] : [{ logicalId, served: `${logicalId}-Warp`, profile: "Warp" }]),
]);

it.each(CASES)(
  "$logicalId, built in $profile, answers its trigger's event from a cold start",
  async ({ logicalId, served }) => {
    const fn = template.functions.find((candidate) => candidate.logicalId === logicalId)!;
    const cold = await invokeLogged(lab, served, functionEvent(fn));
    expect(cold.functionError).toBeUndefined();
    expect(cold.payload).toEqual(ANSWERS[logicalId]);
    expect(cold.report?.initDurationMs).toBeGreaterThan(0);
    expect(cold.log).not.toContain(CACHE_REJECTED);
    if (REFUSED[logicalId]) expect(cold.log).toContain(`warpstart: refused an outbound connection to ${REFUSED[logicalId]}`);
    else expect(cold.log).not.toContain("refused an outbound connection");
  },
  120_000,
);

it.each(["OrdersApi", "OrdersApi-Warp"])(
  "%s: Powertools' Logger marks the cold start's invoke, and only it (its packages in Warp's chunk or not)",
  async (served) => {
    const fn = template.functions.find((candidate) => candidate.logicalId === "OrdersApi")!;
    await forceColdStart(lab, served);
    const cold = await invokeLogged(lab, served, functionEvent(fn));
    const warm = await invokeLogged(lab, served, functionEvent(fn));
    expect(cold.log).toContain('"cold_start":true');
    expect(warm.log).toContain('"cold_start":false');
    expect(warm.log).not.toContain('"cold_start":true');
  },
  120_000,
);

it.each(INIT_BEYOND_AWS)(
  "%s, whose INIT fetches a host beyond AWS, fails its INIT, and its log names the host and port",
  async (logicalId) => {
    const fn = template.functions.find((candidate) => candidate.logicalId === logicalId)!;
    const cold = await invokeLogged(lab, logicalId, functionEvent(fn));
    expect(cold.functionError).toBe("Unhandled");
    expect(cold.payload).toMatchObject({ errorType: "Runtime.InitError", errorMessage: "TypeError: fetch failed" });
    expect(cold.log).toContain("warpstart: refused an outbound connection to api.example.com:443");
    // PriceQuotesWarp's cache, made from INIT until that connection, is one V8 takes.
    expect(cold.log).not.toContain(CACHE_REJECTED);
  },
  120_000,
);
