// The corpus of real-world functions (test/fixtures/real-functions): handlers written the way the
// public documentation of their libraries writes them (Powertools, middy, the AWS SDK v3, pino,
// zod), each built in every profile through the builder's own API, as `sam build` would
// (builder/build.mts), into a temporary folder. Each builds, or fails saying why in one line.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { PROFILE_NAMES, type ProfileName } from "../../builder/profiles.mts";
import { PROJECT_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { sam } from "../../lab/sam.mts";

const APP = join(PROJECT_ROOT, "test/fixtures/real-functions");
const TEMPLATE = join(APP, "template.yaml");

/**
 * What each function of the corpus should do in each profile: build (a profile it does not
 * name), or fail with the first line of its error matching the pattern.
 */
const EXPECTED: Record<string, { fails?: Partial<Record<ProfileName, RegExp>> }> = {
  OrdersApi: {}, // Powertools Logger, Metrics, Tracer (captureAWSv3Client), Parameters at INIT, the DynamoDB document client, middy
  PartnerApiSettings: {}, // Powertools Parameters: SSM getParameter and Secrets Manager getSecret at INIT
  SubscriptionPayments: {}, // Powertools Idempotency on DynamoDB
  OrderQueueProcessor: {}, // Powertools Batch and Logger on SQS, no AWS SDK
  ItemsApi: {}, // the DynamoDB document client alone
  ContactForm: {}, // middy and its HTTP middlewares
  EsModuleBenchmark: {}, // console.log then SSM GetParameter during INIT (AWS's ES-modules blog post)
  OrdersAuditLog: {}, // pino, logging during INIT
  OrderPlacedValidator: {}, // zod, no AWS SDK
  UploadLinks: {}, // the S3 request presigner
  DailyOrdersReport: {}, // EventBridge PutEvents
  // Calls https://api.example.com during INIT: Warp cannot run that INIT at build time without
  // reaching off the machine, and must say so, naming the host.
  PriceQuotes: { fails: { Warp: /api\.example\.com/ } },
  // A CommonJS handler (index.cts): Warp loads its SDK chunk from an ES module, by design.
  ReceiptWriter: { fails: { Warp: /the Warp profile loads the SDK as a chunk from an ES module \(import\.meta\)/ } },
};

// The whole corpus in every profile, in npm test: Warp's builds take most of the time (each runs
// INIT twice per architecture, arm64's under qemu).
const CASES = Object.entries(EXPECTED).flatMap(([logicalId, { fails = {} }]) =>
  PROFILE_NAMES.map((profile) => ({ logicalId, profile, fails: fails[profile] ?? null })),
);

/** "built", or the build's error message. */
async function outcome(logicalId: string, profile: ProfileName, outdir: string): Promise<string> {
  try {
    const { outfile } = await buildFunction(functionBuild(readTemplate(TEMPLATE), logicalId, profile), outdir);
    return existsSync(outfile) ? "built" : `built, but ${outfile} is missing`;
  } catch (error) {
    return String((error as Error).message);
  }
}

let outRoot: string;
beforeAll(() => {
  outRoot = mkdtempSync(join(tmpdir(), "warpstart-real-functions-"));
});
afterAll(() => {
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

it("the expectations name every function of the template, and only those", () => {
  expect(Object.keys(EXPECTED).sort()).toEqual(
    readTemplate(TEMPLATE)
      .functions.map((fn) => fn.logicalId)
      .sort(),
  );
});

it("the template is one SAM accepts (sam validate --lint)", async () => {
  await expect(sam(["validate", "--lint"], { quiet: true, cwd: APP })).resolves.toContain("is a valid SAM Template");
});

describe.each(CASES)("$logicalId as $profile", ({ logicalId, profile, fails }) => {
  if (fails) {
    it(`fails, saying why in its first line (${fails})`, async () => {
      const result = await outcome(logicalId, profile, join(outRoot, `${logicalId}-${profile}`));
      expect(result).not.toBe("built");
      expect(result.split("\n")[0]).toMatch(fails);
    }, 300_000);
  } else {
    it("builds", async () => {
      expect(await outcome(logicalId, profile, join(outRoot, `${logicalId}-${profile}`))).toBe("built");
    }, 300_000);
  }
});
