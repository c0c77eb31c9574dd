// The README's step 1 on a copy of the project with its own npm trees: npm install of a client is
// all it takes: warpstart's own SDK tree and the runtime's copy follow (the project's `dependencies`
// script). npm asks the registry, as it does for a user. (Steps 2-6: test/integration/your-function.test.mts.)
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { NODE22 } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { installedSdk } from "../support/lab.mts";
import { copyProject, PACKAGE_DIR } from "../support/project-copy.mts";

const TOOLS_PATH = `${dirname(NODE22)}:${process.env.PATH}`;
const runIn = (cwd: string, command: string, args: string[]) =>
  spawnSync(command, args, { cwd, encoding: "utf8", timeout: 300_000, env: { ...process.env, PATH: TOOLS_PATH } });
const outputOf = (run: ReturnType<typeof runIn>) => ({ status: run.status, output: `${run.stdout ?? ""}\n${run.stderr ?? ""}`.slice(-4000) });

let copy: string;
beforeAll(() => {
  copy = copyProject("copied");
}, 120_000);
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

// A client the project does not install, so that every tree has to follow (the registry has it at the project's SDK version and at the runtime's).
const CLIENT = "@aws-sdk/client-sqs";

it("1. npm install of a client is all it takes: warpstart's own SDK tree and the runtime's copy follow", () => {
  expect(existsSync(join(DEMO_ROOT, "node_modules", CLIENT))).toBe(false);
  const version = installedSdk(); // the project's SDK release
  const install = runIn(copy, join(dirname(NODE22), "npm"), ["install", "--save-prod", "--save-exact", `${CLIENT}@${version}`, "--no-audit", "--no-fund"]);
  expect(outputOf(install)).toMatchObject({ status: 0 });
  const manifest = (path: string) => JSON.parse(readFileSync(join(copy, path), "utf8"));
  expect(manifest("package.json").dependencies[CLIENT]).toBe(version);
  expect(manifest(`${PACKAGE_DIR}/published/package.json`).dependencies[CLIENT]).toBe(version);
  expect(existsSync(join(copy, `${PACKAGE_DIR}/published/node_modules/${CLIENT}/package.json`))).toBe(true);
  for (const runtime of ["node22", "node24"]) {
    const standIn = manifest(`${PACKAGE_DIR}/emulation/runtime/${runtime}/package.json`);
    expect([runtime, standIn.dependencies[CLIENT]]).toEqual([runtime, standIn.config.sdkVersion]);
    expect(existsSync(join(copy, `${PACKAGE_DIR}/emulation/runtime/${runtime}/node_modules/${CLIENT}/package.json`))).toBe(true);
  }
}, 300_000);
