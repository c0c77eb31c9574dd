// The corpora of real-world functions, each a SAM app of its own under test/fixtures:
//   real-functions    handlers written the way the public documentation of their libraries writes
//                     them (Powertools, middy, the AWS SDK v3, pino, zod)
//   public-functions  handlers nobody here wrote, copied verbatim from public SAM apps (SAM CLI's
//                     nodejs22.x templates, Powertools' example app, AWS serverless-patterns;
//                     SOURCES.md names each file's repository, path, commit and license)
// Each function is built in every profile through the builder's own API, as `sam build` would
// (builder/build.mts), into a temporary folder. Each builds, or fails saying why in one line.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, buildResource, functionBuild } from "../../builder/build.mts";
import { PROFILE_NAMES, type ProfileName } from "../../builder/profiles.mts";
import { PROJECT_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { sam } from "../../lab/sam.mts";

/**
 * What each function of a corpus should do in each profile: build (a profile it does not name),
 * or fail with the first line of its error matching the pattern.
 */
type Expectations = Record<string, { fails?: Partial<Record<ProfileName, RegExp>> }>;

/** The same failure in every profile. */
const inEveryProfile = (pattern: RegExp) => Object.fromEntries(PROFILE_NAMES.map((profile) => [profile, pattern]));

// A CommonJS handler (.cts, or Format: cjs): Warp loads its SDK chunk from an ES module, by design.
const COMMONJS_WARP = /the Warp profile loads the SDK as a chunk from an ES module \(import\.meta\)/;

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
  // Calls https://api.example.com during INIT: Warp cannot run that INIT at build time without
  // reaching off the machine, and must say so, naming the host and the way forward.
  PriceQuotes: {
    fails: {
      Warp: /^Warp cannot build PriceQuotes's V8 code cache: its INIT tried to connect to api\.example\.com:443, which is not AWS, .* Set WarpPartialInit: true in its Metadata\.BuildProperties to cache what INIT compiles before that connection/,
    },
  },
  PriceQuotesWarp: {}, // PriceQuotes with WarpPartialInit: its Warp cache holds INIT until that connection
  ShippingRates: {}, // a non-AWS API during INIT with a fallback: the refused connection is INIT's own business
  ReceiptWriter: { fails: { Warp: COMMONJS_WARP } }, // a CommonJS handler (index.cts)
};

const PUBLIC_FUNCTIONS: Expectations = {
  // SAM CLI's nodejs22.x templates (aws/aws-sam-cli-app-templates), as `sam init` renders them:
  SamHelloWorld: {}, // hello: plain JavaScript (app.mjs), an API's GET
  SamHelloWorldTs: {}, // hello-ts: TypeScript importing aws-lambda's types, with its own tsconfig.json beside it
  SamHelloWorldPowertools: {}, // hello-ts-pt: TypeScript with Powertools Logger, Metrics and Tracer
  SamHelloDurable: { fails: { Warp: COMMONJS_WARP } }, // hello-durable-ts: @aws/durable-execution-sdk-js, Format: cjs as its template says
  // hello-durable-ts's handler again, as an ES module (no Format) for Warp.
  // The durable SDK imports @aws-sdk/client-lambda on first use (`await import`), after INIT: there
  // is no SDK in INIT for a code cache to hold, and the build says so.
  SamHelloDurableEsm: {
    fails: { Warp: /^Warp cannot build SamHelloDurableEsm's V8 code cache: its INIT loads no AWS SDK \(it imports the SDK dynamically, after INIT\)/ },
  },
  SamWebGetAllItems: {}, // web: the DynamoDB document client (ScanCommand) behind a REST API
  SamWebPutItem: {}, // web: the DynamoDB document client (PutCommand) behind a REST API
  // s3: GetObject and @aws-sdk/util-stream-node's sdkStreamMixin, on S3 uploads. util-stream-node's
  // last version is 3.374.0: the runtime's SDK (3.806.0) has no copy of it, so Raw bundles it.
  SamS3JsonLogger: {},
  SamSqsPayloadLogger: {}, // sqs: an SQS queue's messages logged, no dependencies
  SamScheduledEventLogger: {}, // cw-event: a schedule's events logged, no dependencies
  SamStockChecker: {}, // step-func: invoked by a state machine, no dependencies
  SamStockSeller: {}, // step-func: node's crypto
  SamStockBuyer: {}, // step-func: node's crypto
  SamStreaming: {}, // response-streaming: CommonJS index.js, awslambda.streamifyResponse at INIT, a streaming function URL
  // Powertools for AWS Lambda (TypeScript)'s example app (examples/app), its modules found through package.json `imports`:
  PowertoolsPutItem: {}, // Logger, Metrics, Tracer by hand; Idempotency whose table name INIT reads from SSM (top-level await)
  PowertoolsGetAllItems: {}, // middy with Powertools' middlewares, the traced document client
  PowertoolsGetById: { fails: { Warp: COMMONJS_WARP } }, // method decorators (experimentalDecorators), Format: cjs
  PowertoolsProcessItemsStream: { fails: { Warp: COMMONJS_WARP } }, // Batch on a DynamoDB stream, util-dynamodb, Format: cjs
  // AWS serverless-patterns (aws-samples/serverless-patterns):
  // sqs-lambda-ddb-sam-ts: TypeScript, DynamoDB PutItem with marshall, on SQS.
  // `import { SQSBatchResponse, SQSEvent, SQSHandler } from "aws-lambda"` (types only, no `import
  // type`) stays an import under the project's tsconfig.json (verbatimModuleSyntax), and there is no
  // aws-lambda package: the build says to import the types with `import type`. SAM's esbuild, without
  // that setting, drops it.
  PatternsSqsToDynamoDb: {
    fails: inEveryProfile(
      /esbuild cannot bundle it: .*sqs-lambda-ddb-sam-ts\/src\/app\.ts:7: Could not resolve "aws-lambda" \(only its types are installed, as @types\/aws-lambda: import them with `import type`/,
    ),
  },
  PatternsDynamoDbToEventBridge: {}, // dynamodb-eventbridge: CommonJS app.js, EventBridge PutEvents on a DynamoDB stream
  PatternsImageResizer: {}, // s3-lambda-resizing-node: CommonJS app.js, gm and S3 on S3 uploads
};

const CORPORA = [
  { corpus: "real-functions", expected: REAL_FUNCTIONS },
  { corpus: "public-functions", expected: PUBLIC_FUNCTIONS },
];

let outRoot: string;
beforeAll(() => {
  outRoot = mkdtempSync(join(tmpdir(), "warpstart-real-functions-"));
});
afterAll(() => {
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

describe.each(CORPORA)("$corpus", ({ corpus, expected }) => {
  const app = join(PROJECT_ROOT, "test/fixtures", corpus);
  const template = join(app, "template.yaml");

  /** "built", or the build's error message. */
  async function outcome(logicalId: string, profile: ProfileName): Promise<string> {
    try {
      const { outfile } = await buildFunction(functionBuild(readTemplate(template), logicalId, profile), join(outRoot, corpus, `${logicalId}-${profile}`));
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

  // The whole corpus in every profile, in npm test: Warp's builds take most of the time (each runs
  // INIT twice per architecture, arm64's under qemu).
  const cases = Object.entries(expected).flatMap(([logicalId, { fails = {} }]) =>
    PROFILE_NAMES.map((profile) => ({ logicalId, profile, fails: fails[profile] ?? null })),
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

it("says what a partial INIT's code cache holds: INIT until its connection beyond AWS, accepted by V8 on each architecture", async () => {
  const template = join(PROJECT_ROOT, "test/fixtures/real-functions/template.yaml");
  await expect(buildResource(template, "PriceQuotesWarp", join(outRoot, "PriceQuotesWarp-partial"))).resolves.toMatch(
    /^built PriceQuotesWarp \(Warp\): .* V8 code cache [\d.]+ KiB \(arm64 and x86_64: each accepted on a test INIT, made from INIT until its connection to api\.example\.com:443\)\)$/,
  );
}, 300_000);
