// The corpora of real-world functions, each a SAM app of its own under test/fixtures:
//   real-functions  handlers written the way the public documentation of their libraries writes
//                   them (Powertools, middy, the AWS SDK v3, pino, zod)
//   app-shapes      the functions of SAM apps in the shapes of public ones (SAM CLI's quick-start
//                   templates, Powertools' example app, AWS serverless-patterns: builder, module
//                   format, trigger, libraries; docs/public-apps.md), each app in a folder of its own
// Each function is built through the builder's own API, as `sam build` would (builder/build.mts),
// into a temporary folder: real-functions in every profile, app-shapes in Raw, Bundled and
// Optimized and, for one function of each library family, Warp. Each builds, or fails saying why
// in one line.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, buildResource, functionBuild } from "../../builder/build.mts";
import { PROFILE_NAMES, type ProfileName } from "../../builder/profiles.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { sam } from "../../lab/sam.mts";

/**
 * What each function of a corpus should do in each profile it is built in (`profiles`, default
 * every one): build (a profile `fails` does not name), or fail with the first line of its error
 * matching the pattern.
 */
type Expectations = Record<string, { profiles?: readonly ProfileName[]; fails?: Partial<Record<ProfileName, RegExp>> }>;

/** The same failure in every profile. */
const inEveryProfile = (pattern: RegExp) => Object.fromEntries(PROFILE_NAMES.map((profile) => [profile, pattern]));

// Warp's build differs from Optimized's only where the handler imports packages (Warp's chunk and
// its code cache; a function that imports none is built as Optimized): a function whose Warp build
// would repeat another's library family is built in the other profiles only.
const NOT_IN_WARP = { profiles: PROFILE_NAMES.filter((profile) => profile !== "Warp") };

const REAL_FUNCTIONS: Expectations = {
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
  // Calls https://api.example.com during INIT: its Warp build, which cannot run that INIT at build
  // time without reaching off the machine, has a test of its own below.
  PriceQuotes: NOT_IN_WARP,
  PriceQuotesWarp: {}, // PriceQuotes with WarpPartialInit: its Warp cache holds INIT until that connection
  ShippingRates: {}, // a non-AWS API during INIT with a fallback: the refused connection is INIT's own business
  ReceiptWriter: {}, // a CommonJS handler (index.cts)
};

const APP_SHAPES: Expectations = {
  StationBoard: NOT_IN_WARP, // station-board: plain JavaScript (app.mjs), an API's GET
  FareQuote: NOT_IN_WARP, // fare-quote: TypeScript importing aws-lambda's types, with its own tsconfig.json beside it
  RidePulse: NOT_IN_WARP, // ride-pulse: TypeScript with Powertools Logger, Metrics and Tracer, no AWS SDK
  TripJournal: {}, // trip-journal: @aws/durable-execution-sdk-js, Format: cjs as its template says
  // trip-journal's handler again, as an ES module (no Format). The durable SDK imports
  // @aws-sdk/client-lambda on first use (`await import`), after INIT; the cache holds the durable SDK itself.
  TripJournalEsm: {},
  BikeCatalogList: {}, // bike-catalog: the DynamoDB document client (ScanCommand) behind a REST API
  BikeCatalogAdd: NOT_IN_WARP, // bike-catalog: the DynamoDB document client (PutCommand), node:crypto
  // trip-receipts: GetObject and @aws-sdk/util-stream-node's sdkStreamMixin, on S3 uploads. util-stream-node's
  // last version is 3.374.0: nodejs22.x's SDK (3.895.0) has no copy of it, so Raw bundles it.
  TripReceipts: {},
  FleetLogsDockReports: NOT_IN_WARP, // fleet-logs: an SQS queue's messages logged, no dependencies
  FleetLogsHourlyTally: NOT_IN_WARP, // fleet-logs: a schedule's events logged, no dependencies
  RebalanceCountBikes: NOT_IN_WARP, // rebalance-flow: invoked by a state machine, no dependencies
  RebalancePlanPickup: NOT_IN_WARP, // rebalance-flow: node:crypto
  RebalancePlanDropOff: NOT_IN_WARP, // rebalance-flow: node:crypto
  RideReplay: NOT_IN_WARP, // ride-replay: CommonJS index.js, awslambda.streamifyResponse at INIT, a streaming function URL
  // ride-ingest: TypeScript, DynamoDB PutItem with marshall, on SQS.
  // `import { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda"` (types only, no `import
  // type`) stays an import under the project's tsconfig.json (verbatimModuleSyntax), and there is no
  // aws-lambda package: the build says to import the types with `import type`. SAM's esbuild, where
  // no tsconfig.json says verbatimModuleSyntax, drops it (test/slow/doctor-app-shapes.test.mts).
  RideIngest: {
    fails: inEveryProfile(
      /esbuild cannot bundle it: .*ride-ingest\/src\/ingest\.ts:8: Could not resolve "aws-lambda" \(only its types are installed, as @types\/aws-lambda: import them with `import type`/,
    ),
  },
  BikePhotos: NOT_IN_WARP, // bike-photos: CommonJS app.js, gm and S3 on S3 uploads (S3's family: TripReceipts)
  // fleet-api (Powertools for AWS Lambda (TypeScript)), its modules found through package.json `imports`:
  FleetRegisterBike: {}, // Logger, Metrics, Tracer by hand; Idempotency whose table name INIT reads from SSM (top-level await)
  FleetListBikes: {}, // middy with Powertools' middlewares, the traced document client
  FleetGetBike: {}, // method decorators (experimentalDecorators), Format: cjs
  FleetBikeEvents: {}, // Batch on a DynamoDB stream, util-dynamodb, Format: cjs
  DockChanges: {}, // dock-changes: CommonJS app.js, EventBridge PutEvents on a DynamoDB stream
};

const CORPORA = [
  { corpus: "real-functions", expected: REAL_FUNCTIONS },
  { corpus: "app-shapes", expected: APP_SHAPES },
];

let outRoot: string;
beforeAll(() => {
  outRoot = mkdtempSync(join(tmpdir(), "warpstart-real-functions-"));
});
afterAll(() => {
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

describe.each(CORPORA)("$corpus", ({ corpus, expected }) => {
  const app = join(PACKAGE_ROOT, "test/fixtures", corpus);
  const template = join(app, "template.yaml");

  /** "built", or the build's error message. */
  async function outcome(logicalId: string, profile: ProfileName): Promise<string> {
    try {
      const { outfile } = await buildFunction(functionBuild(readTemplate(template), logicalId, profile), join(outRoot, corpus, `${logicalId}-${profile}`), {
        initServices: ownLocalAws,
      });
      return existsSync(outfile) ? "built" : `built, but ${outfile} is missing`;
    } catch (error) {
      return String((error as Error).message);
    }
  }

  it("the expectations name every function of the template, and only those", () => {
    expect(Object.keys(expected).sort()).toEqual(
      readTemplate(template)
        .functions.map((fn) => fn.logicalId)
        .sort(),
    );
  });

  it("the template is one SAM accepts (sam validate --lint)", async () => {
    await expect(sam(["validate", "--lint"], { quiet: true, cwd: app })).resolves.toContain("is a valid SAM Template");
  });

  // Warp's builds take most of the time (each runs INIT twice per architecture, arm64's under qemu).
  const cases = Object.entries(expected).flatMap(([logicalId, { profiles = PROFILE_NAMES, fails = {} }]) =>
    profiles.map((profile) => ({ logicalId, profile, fails: fails[profile] ?? null })),
  );
  describe.each(cases)("$logicalId as $profile", ({ logicalId, profile, fails }) => {
    if (fails) {
      it(`fails, saying why in its first line (${fails})`, async () => {
        const result = await outcome(logicalId, profile);
        expect(result).not.toBe("built");
        expect(result.split("\n")[0]).toMatch(fails);
      }, 300_000);
    } else {
      it("builds", async () => {
        expect(await outcome(logicalId, profile)).toBe("built");
      }, 300_000);
    }
  });
});

it("builds PriceQuotes's Warp from what INIT compiled before its connection beyond AWS, naming the host and WarpPartialInit", async () => {
  const template = readTemplate(join(PACKAGE_ROOT, "test/fixtures/real-functions/template.yaml"));
  const { notes } = await buildFunction(functionBuild(template, "PriceQuotes", "Warp"), join(outRoot, "PriceQuotes-stopped"), { initServices: ownLocalAws });
  expect(notes).toContainEqual(
    expect.stringMatching(
      /^its code cache holds what INIT compiled until it failed: Warp cannot build PriceQuotes's V8 code cache: its INIT tried to connect to api\.example\.com:443, which is not AWS, .* Set WarpPartialInit: true in its Metadata\.BuildProperties/,
    ),
  );
}, 300_000);

it("says what a partial INIT's code cache holds: INIT until its connection beyond AWS, accepted by V8 on each architecture", async () => {
  const template = join(PACKAGE_ROOT, "test/fixtures/real-functions/template.yaml");
  await expect(buildResource(template, "PriceQuotesWarp", join(outRoot, "PriceQuotesWarp-partial"), ownLocalAws)).resolves.toMatch(
    /^built PriceQuotesWarp \(Warp\): .* V8 code cache [\d.]+ KiB \((arm64 and x86_64: each accepted on a test INIT|x86_64: accepted on a test INIT; arm64: accepted on an earlier build's, of the same Node and flags), made from INIT until its connection to api\.example\.com:443\)\)(, from the build cache: nothing it reads has changed)?$/,
  );
}, 300_000);
