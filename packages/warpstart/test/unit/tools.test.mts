// Which SAM CLI the commands run: the user's on PATH when the package supports its version (said,
// with it), else the package's own (said why). Each case puts a stand-in `sam` on a PATH of its own.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SAM_CLI_SUPPORTED, samCliOnPath } from "../../core/tools.mts";

let bin: string;
beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), "warpstart-sam-path-"));
});
afterEach(() => rmSync(bin, { recursive: true, force: true }));

/** A `sam` on the stand-in PATH that prints `version` as SAM CLI does. */
const samSaying = (version: string) => writeFileSync(join(bin, "sam"), `#!/bin/sh\necho "SAM CLI, version ${version}"\n`, { mode: 0o755 });

it("takes a supported SAM CLI from PATH, and says so with its version", () => {
  samSaying("1.150.2");
  const said: string[] = [];
  expect(samCliOnPath(`/nonexistent:${bin}`, (line) => said.push(line))).toEqual({ bin: join(bin, "sam"), version: "1.150.2", from: "PATH" });
  expect(said).toEqual([`SAM CLI 1.150.2 from PATH (${join(bin, "sam")})`]);
});

it("leaves an older SAM CLI on PATH, saying why", () => {
  samSaying("1.120.0");
  const said: string[] = [];
  expect(samCliOnPath(bin, (line) => said.push(line))).toBeNull();
  expect(said).toEqual([`SAM CLI 1.120.0 on PATH (${join(bin, "sam")}) is not one warpstart supports (${SAM_CLI_SUPPORTED}): using its own`]);
});

it("finds none where the PATH has none, and says nothing", () => {
  const said: string[] = [];
  expect(samCliOnPath(bin, (line) => said.push(line))).toBeNull();
  expect(said).toEqual([]);
});
