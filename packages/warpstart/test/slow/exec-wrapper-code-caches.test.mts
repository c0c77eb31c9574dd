// The code caches V8 takes under the exec wrapper that drops the managed runtime's V8 flags
// (src/warp/warp-exec), started as Lambda's bootstrap starts it — Node's own for its builtins and
// Warp's for the SDK chunk — on this machine and on the arm64 Node under qemu.
import { cpSync, existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { execOwned, removeTree } from "../../core/processes.mts";
import { nodeFor, RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate, type TemplateFunction } from "../../core/template.mts";
import { bootstrapCommand, functionEnvironment, servicesOf } from "../../emulation/function-environment.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { WARP_EXEC_WRAPPER } from "../../src/contract.mts";
import { DEMO_TEMPLATE } from "../support/demo.mts";

const WRAPPER = join(PACKAGE_ROOT, "src/warp/warp-exec");
const root = mkdtempSync(join(tmpdir(), "warpstart-exec-wrapper-caches-"));
afterAll(() => removeTree(root));
const scratch = () => mkdtempSync(join(root, "scratch-"));
const wrapped = (fn: TemplateFunction): TemplateFunction => ({ ...fn, environment: { ...fn.environment, AWS_LAMBDA_EXEC_WRAPPER: WARP_EXEC_WRAPPER } });

describe("the code caches V8 takes under the wrapper", () => {
  /** How many of the builtins `https`, `tls`, `crypto` and `vm` load were compiled without Node's embedded code cache. */
  const BUILTINS_COMPILED =
    "const b = require('internal/test/binding').internalBinding('builtins'); for (const m of ['https', 'tls', 'crypto', 'vm']) require(m); console.log([...b.getCacheUsage().compiledWithoutCache].length)";

  it.each(["x86_64", "arm64"])(
    "Node's own for its builtins (%s): every one compiled from source under Lambda's flags, none through the wrapper",
    async (architecture) => {
      if (architecture === "x86_64" && process.arch !== "x64") return;
      const [command, prefix] = nodeFor(RUNTIMES.node22, architecture);
      const node = [command, ...prefix, ...RUNTIMES.node22.nodeFlags(512), "--expose-internals", "-e", BUILTINS_COMPILED];
      const env = { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" };
      const withoutCache = async ([program, args]: [string, string[]]) => Number((await execOwned(program, args, { env, timeout: 60_000 })).stdout.trim());
      expect(await withoutCache([node[0]!, node.slice(1)])).toBeGreaterThan(10);
      expect(await withoutCache([WRAPPER, node])).toBe(0);
    },
    120_000,
  );

  it("Warp's for the SDK chunk, made under the wrapper's flags: accepted through it (arm64 under qemu, and here), rejected without it", async () => {
    const template = readTemplate(DEMO_TEMPLATE);
    const build = functionBuild(template, "Warp");
    const fn = wrapped(build.fn);
    const artifactDir = join(scratch(), "Warp");
    await buildFunction({ ...build, fn }, artifactDir, { initServices: ownLocalAws });
    expect(statSync(join(artifactDir, "warp-exec")).mode & 0o111).toBe(0o111);
    expect(readFileSync(join(artifactDir, "warp-exec"), "utf8")).toBe(readFileSync(WRAPPER, "utf8"));
    const handler = join(artifactDir, "src/functions/identity/index.mjs");
    expect(existsSync(join(artifactDir, "src/functions/identity/sdk.arm64.cache"))).toBe(true);

    const aws = await startLocalAws();
    try {
      const spec = { name: "Warp", codeDir: artifactDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: RUNTIMES.node22 };
      const variables = { AWS_LAMBDA_EXEC_WRAPPER: WARP_EXEC_WRAPPER };
      const env = functionEnvironment(spec, artifactDir, servicesOf(aws), { variables });
      const verdictOf = async (architecture: string, through: "wrapper" | "bootstrap's flags") => {
        const [command, prefix] = nodeFor(RUNTIMES.node22, architecture);
        const verdict = join(scratch(), "verdict");
        const node = [
          command,
          ...prefix,
          ...RUNTIMES.node22.nodeFlags(fn.memoryMb),
          join(PACKAGE_ROOT, "builder/code-cache-child.mjs"),
          "status",
          handler,
          verdict,
        ];
        const [program, args] = through === "wrapper" ? bootstrapCommand(node, variables, { taskRoot: artifactDir }) : [node[0]!, node.slice(1)];
        // The lab's overlay holds this machine's cache; the artifact, arm64's.
        if (architecture !== "arm64") cpSync(`${artifactDir}.lab`, artifactDir, { recursive: true });
        await execOwned(program, args, { env, cwd: artifactDir, timeout: 120_000 });
        return readFileSync(verdict, "utf8");
      };
      expect(await verdictOf("arm64", "wrapper")).toBe("accepted");
      expect(await verdictOf("arm64", "bootstrap's flags")).toBe("rejected");
      if (process.arch === "x64") expect(await verdictOf("x86_64", "wrapper")).toBe("accepted");
    } finally {
      await aws.stop();
    }
  }, 300_000);
});
