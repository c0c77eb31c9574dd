// The long-lived Node that runs the build-time INITs under qemu (builder/init-server.mts): each
// INIT in a Worker of its own, with the function's environment and folder, one server per Node and
// process-wide environment. Shown here on this machine's Node (the arm64 one under qemu is the
// same program: build.test.mts's arm64 builds make their caches in it, and check them in a Node of
// their own).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initInServer, initServerOf } from "../../builder/init-server.mts";

let dir: string;
const node = [process.execPath, "--max-semi-space-size=25"];
/** What the handler's INIT saw: the process it ran in, its environment and folder, and its time zone. */
const seen = (output: string) => JSON.parse(output.split("\n").find((line) => line.startsWith("{"))!) as Record<string, string | number>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "warpstart-init-server-"));
  for (const name of ["a", "b"]) mkdirSync(join(dir, name));
  writeFileSync(
    join(dir, "reports.mjs"),
    `import { isMainThread } from "node:worker_threads";
console.log(JSON.stringify({ pid: process.pid, mainThread: isMainThread, fn: process.env.FN, cwd: process.cwd(), offset: new Date(0).getTimezoneOffset() }));
export const handler = async () => "ok";
`,
  );
  writeFileSync(join(dir, "throws.mjs"), 'throw new TypeError("INIT failed here");\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (handler: string, cwd: string, env: Record<string, string>) => ({
  argv: ["write", join(dir, handler), join(cwd, "verdict"), "{}"],
  env: { TZ: ":UTC", ...env },
  cwd,
  timeoutMs: 30_000,
});

it("runs each INIT in a Worker of one long-lived Node, with that function's environment and folder", async () => {
  const first = await initInServer(node, request("reports.mjs", join(dir, "a"), { FN: "First" }));
  const second = await initInServer(node, request("reports.mjs", join(dir, "b"), { FN: "Second" }));
  expect([first.code, second.code]).toEqual([0, 0]);
  expect(seen(first.output)).toMatchObject({ mainThread: false, fn: "First", cwd: join(dir, "a") });
  expect(seen(second.output)).toMatchObject({ mainThread: false, fn: "Second", cwd: join(dir, "b") });
  expect(seen(second.output).pid).toBe(seen(first.output).pid);
  expect(seen(first.output).pid).not.toBe(process.pid);
  // The child's verdict, as from a Node of its own: this handler loads no chunk.
  expect(readFileSync(join(dir, "a", "verdict"), "utf8")).toBe("not loaded");
}, 60_000);

it("starts a server of its own for another time zone, which a Worker cannot have on its own", async () => {
  const utc = await initInServer(node, request("reports.mjs", join(dir, "a"), {}));
  const tokyo = await initInServer(node, request("reports.mjs", join(dir, "a"), { TZ: "Asia/Tokyo" }));
  expect(seen(utc.output).offset).toBe(0);
  expect(seen(tokyo.output).offset).toBe(-540);
  expect(seen(tokyo.output).pid).not.toBe(seen(utc.output).pid);
  expect(initServerOf(node, { TZ: "Asia/Tokyo" }).socket).not.toBe(initServerOf(node, { TZ: ":UTC" }).socket);
}, 60_000);

it("answers an INIT that throws with a failed exit and the error, which the build's message quotes", async () => {
  const answer = await initInServer(node, request("throws.mjs", join(dir, "a"), {}));
  expect(answer.code).not.toBe(0);
  expect(answer.output).toMatch(/^TypeError: INIT failed here$/m);
}, 60_000);
