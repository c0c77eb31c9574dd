// The endpoint of the local AWS each function gets, and who plays the DNS lookup: a Node function
// resolves the local AWS by name in its own process (emulation/local-aws/dns.cjs) when the network has
// a lookup; a custom runtime, S3's client and a network without a lookup connect by address.
// Every Node function gets the outbound guard, and what Lambda sets for X-Ray and its log stream.
// What of the runtime's SDK copy a cold start reads from storage: what the artifact can load of it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { removeTree } from "../../core/processes.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import type { TemplateLayer } from "../../core/template.mts";
import { type FunctionSpec, functionEnvironment, type LocalServices, prepareLayersDir } from "../../emulation/function-environment.mts";
import { runtimeDirOf, runtimeSdkFilesOf } from "../../emulation/runtime-sdk.mts";

const BY_ADDRESS = "https://127.0.0.1:4000";
const BY_NAME = "https://localhost:4001";
const DNS_PRELOAD = `--require=${join(PACKAGE_ROOT, "emulation/local-aws/dns.cjs")}`;
const GUARD = `--require=${join(PACKAGE_ROOT, "emulation/local-aws/outbound-guard.cjs")}`;
const spec = (runtime: FunctionSpec["runtime"]): FunctionSpec => ({ name: "Fn", codeDir: "/code", handler: "index.handler", memoryMb: 512, runtime });
const services: LocalServices = { awsEndpoint: BY_ADDRESS, caFile: "/ca.pem", awsByName: { endpoint: BY_NAME, dnsMs: 7 }, xrayDaemon: "127.0.0.1:2999" };

// First: the lab's folder is fixed at its first use in a process.
describe("the app's own layers as a function's /opt", () => {
  // The lab's folder in a temporary one: the layers' copy goes there.
  const home = mkdtempSync(join(tmpdir(), "warpstart-layers-"));
  const cacheHome = process.env.XDG_CACHE_HOME;
  beforeAll(() => {
    process.env.XDG_CACHE_HOME = join(home, "cache");
  });
  afterAll(() => {
    if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = cacheHome;
    removeTree(home);
  });

  it("extracts them in order, a later one's files over an earlier one's, and leaves out one whose content is missing, or names one nested in nodejs/ twice, with a line saying what to do", () => {
    const layer = (name: string, files: Record<string, string>) => {
      const contentDir = join(home, name);
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(contentDir, file)), { recursive: true });
        writeFileSync(join(contentDir, file), text);
      }
      return { logicalId: name, contentDir };
    };
    const first = layer("First", { "nodejs/node_modules/a/index.js": "first", "nodejs/node_modules/b/index.js": "first" });
    const second = layer("Second", { "nodejs/node_modules/b/index.js": "second" });
    // A ContentUri holding nodejs/, built with BuildMethod nodejs22.x: sam build nests it in nodejs/ again.
    const nested = layer("Nested", { "nodejs/nodejs/config.mjs": "export const config = {};" });
    const lines: string[] = [];
    const optDir = prepareLayersDir([first, { logicalId: "Unbuilt", contentDir: join(home, "lib") }, second, nested] as TemplateLayer[], (line) =>
      lines.push(line),
    );
    expect(optDir.startsWith(home)).toBe(true);
    expect(readFileSync(join(optDir, "nodejs/node_modules/a/index.js"), "utf8")).toBe("first");
    expect(readFileSync(join(optDir, "nodejs/node_modules/b/index.js"), "utf8")).toBe("second");
    expect(lines).toEqual([
      `layer Unbuilt's content ${join(home, "lib")} does not exist: build it as the app's README says (or fix its ContentUri); its functions run without it`,
      "layer Nested puts its files in /opt/nodejs/nodejs/, as on Lambda, where no import of /opt/nodejs/<file> and no NODE_PATH finds them: " +
        "sam build puts a layer built with a nodejs BuildMethod in nodejs/, and its ContentUri holds nodejs/ already; point ContentUri at that nodejs/ folder",
    ]);
    expect(readFileSync(join(optDir, "nodejs/nodejs/config.mjs"), "utf8")).toBe("export const config = {};");
  });
});

describe("the local AWS a function calls", () => {
  it("is, for a Node function on a network with a lookup, the endpoint by name, resolved in its process after the function's own NODE_OPTIONS", () => {
    const env = functionEnvironment(spec(RUNTIMES.node22), "/task", services, { variables: { NODE_OPTIONS: "--enable-source-maps" } });
    expect(env).toMatchObject({
      AWS_ENDPOINT_URL: BY_NAME,
      AWS_ENDPOINT_URL_S3: BY_ADDRESS, // the bucket goes into an S3 host name, which the certificate for localhost does not cover
      WARPSTART_LAB_DNS_MS: "7",
      NODE_OPTIONS: `--enable-source-maps ${GUARD} ${DNS_PRELOAD}`,
    });
  });

  it("is the endpoint by address for a custom runtime, whose lookup the proxy plays", () => {
    const env = functionEnvironment(spec(RUNTIMES.bun), "/task", services);
    expect(env.AWS_ENDPOINT_URL).toBe(BY_ADDRESS);
    expect(env).not.toHaveProperty("NODE_OPTIONS");
    expect(env).not.toHaveProperty("WARPSTART_LAB_DNS_MS");
  });

  it("is the endpoint by address on a network without a lookup, after the function's own NODE_OPTIONS and the outbound guard", () => {
    const env = functionEnvironment(spec(RUNTIMES.node22), "/task", { ...services, awsByName: null }, { variables: { NODE_OPTIONS: "--enable-source-maps" } });
    expect(env).toMatchObject({ AWS_ENDPOINT_URL: BY_ADDRESS, NODE_OPTIONS: `--enable-source-maps ${GUARD}` });
    expect(env).not.toHaveProperty("AWS_ENDPOINT_URL_S3");
  });
});

describe("what Lambda sets beside the function's own variables", () => {
  it("points X-Ray's variables at the lab's daemon, which the function cannot override", () => {
    const env = functionEnvironment(spec(RUNTIMES.node22), "/task", services, { variables: { AWS_XRAY_DAEMON_ADDRESS: "10.0.0.1:2000" } });
    expect(env).toMatchObject({
      AWS_XRAY_DAEMON_ADDRESS: "127.0.0.1:2999",
      _AWS_XRAY_DAEMON_ADDRESS: "127.0.0.1",
      _AWS_XRAY_DAEMON_PORT: "2999",
      AWS_XRAY_CONTEXT_MISSING: "LOG_ERROR",
    });
  });

  it("names a log stream as Lambda does", () => {
    expect(functionEnvironment(spec(RUNTIMES.node22), "/task", services).AWS_LAMBDA_LOG_STREAM_NAME).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/);
  });
});

describe("what of the runtime's SDK copy a new environment reads from storage (--code-loading lambda)", () => {
  const artifacts = mkdtempSync(join(tmpdir(), "warpstart-artifacts-"));
  afterAll(() => rmSync(artifacts, { recursive: true, force: true }));
  /** An artifact with these files (path -> source). */
  const artifact = (name: string, files: Record<string, string>) => {
    for (const [file, source] of Object.entries(files)) {
      mkdirSync(dirname(join(artifacts, name, file)), { recursive: true });
      writeFileSync(join(artifacts, name, file), source);
    }
    return join(artifacts, name);
  };
  const inRuntime = (path: string) => join(runtimeDirOf(RUNTIMES.node22), "node_modules", path);
  const readsOf = (codeDir: string) => runtimeSdkFilesOf(codeDir, RUNTIMES.node22);

  it("is, for a handler that imports a client from the runtime, that client and what it depends on: package.json and dist-cjs of each SDK package", () => {
    const files = readsOf(
      artifact("raw", { "src/index.mjs": 'import { STSClient } from "@aws-sdk/client-sts";\nexport const handler = async () => new STSClient({});\n' }),
    );
    expect(files).toEqual(
      expect.arrayContaining([
        inRuntime("@aws-sdk/client-sts/package.json"),
        inRuntime("@aws-sdk/client-sts/dist-cjs"),
        inRuntime("@smithy/core/dist-cjs"),
        // a dependency npm nested under the package that needs it
        inRuntime("@aws-crypto/util/node_modules/@smithy/util-utf8/dist-cjs"),
        // a package without dist-cjs: all of it
        inRuntime("tslib"),
      ]),
    );
    expect(files.filter((file) => /client-s3|dist-es|dist-types/.test(file))).toEqual([]);
  });

  it("is nothing for an artifact that bundles its SDK", () => {
    expect(readsOf(artifact("bundled", { "index.mjs": 'import { request } from "node:https";\nconst name = "@aws-sdk/client-sts";\n' }))).toEqual([]);
  });

  it("counts a require, a dynamic import and a resolve anywhere in the artifact, its own node_modules included", () => {
    const files = readsOf(
      artifact("mixed", {
        "index.cjs": 'const { createRequire } = require("node:module");\nconst where = createRequire(__filename).resolve("@aws-sdk/client-cloudformation");\n',
        "lazy.mjs": 'export const load = () => import("@aws-sdk/client-lambda");\n',
        "node_modules/a-library/index.js": 'module.exports = require("@aws-sdk/client-dynamodb/dist-cjs/index.js");\n',
      }),
    );
    for (const client of ["client-cloudformation", "client-lambda", "client-dynamodb"]) expect(files).toContain(inRuntime(`@aws-sdk/${client}/dist-cjs`));
  });
});
