// privateTempDir: a folder outside the project that only this user can have made and can read,
// refused (with what to do) when the name in the shared temporary directory is taken otherwise.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateTempDir } from "../../core/processes.mts";

const uid = process.getuid!();
/** A stand-in for the shared temporary directory. */
let shared: string;
beforeEach(() => {
  shared = mkdtempSync(join(tmpdir(), "warpstart-shared-tmp-"));
});
afterEach(() => {
  rmSync(shared, { recursive: true, force: true });
});

it("makes <tmp>/<name>-<uid>, readable by this user alone, and gives the same folder again", () => {
  const dir = privateTempDir("warpstart-lab", shared);
  expect(dir).toBe(join(shared, `warpstart-lab-${uid}`));
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(privateTempDir("warpstart-lab", shared)).toBe(dir);
});

it("refuses a folder others may read or write, saying what to do", () => {
  const dir = join(shared, `warpstart-lab-${uid}`);
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  expect(() => privateTempDir("warpstart-lab", shared)).toThrow(
    `${dir} is a folder of uid ${uid}, mode 0777, not a private folder of this user's (uid ${uid}): remove it, or set TMPDIR to a folder of your own`,
  );
});

it("refuses a symbolic link in its place", () => {
  const elsewhere = join(shared, "elsewhere");
  mkdirSync(elsewhere, { mode: 0o700 });
  symlinkSync(elsewhere, join(shared, `warpstart-lab-${uid}`));
  expect(() => privateTempDir("warpstart-lab", shared)).toThrow(/is a symbolic link, not a private folder of this user's/);
});
