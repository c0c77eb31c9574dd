// Nothing outlives the lab: however its owner ends (SIGKILL, a closed terminal's SIGHUP, an
// uncaught exception), the local AWS and every execution environment, frozen or busy, end within
// seconds and free their ports. Owners that start together sweep the same gone owners' folders
// without tripping over each other. And environments killed under traffic cost their requests only
// an error in Lambda's shape, while the lab keeps serving.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { NODE22, PACKAGE_ROOT } from "../../core/paths.mts";
import { removeTree } from "../../core/processes.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { taskRootsDirOf } from "../../emulation/function-environment.mts";
import { assertPortFree } from "../../emulation/local-aws/local-aws.mts";
import { runtimeEntryOf } from "../../emulation/runtime-sdk.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { eventually } from "../support/eventually.mts";
import { invokeLogged } from "../support/lab.mts";

/** What an environment of nodejs22.x runs: the runtime's bootstrap, in its command line. */
const ENVIRONMENT_ENTRY = runtimeEntryOf(RUNTIMES.node22);

const OWNER = join(import.meta.dirname, "../support/lab-owner.mts");

/** Every live process below `pid` (Linux /proc): pid, state and command line. A zombie has ended. */
function descendants(pid: number): Array<{ pid: number; state: string; command: string }> {
  const table = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const [, rest] = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ");
        const [state, ppid] = rest!.split(" ");
        return [
          { pid: Number(entry), ppid: Number(ppid), state: state!, command: readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim() },
        ];
      } catch {
        return []; // gone while we looked
      }
    });
  const found: Array<{ pid: number; state: string; command: string }> = [];
  const walk = (parent: number) => {
    for (const child of table.filter((entry) => entry.ppid === parent)) {
      if (child.state !== "Z") found.push({ pid: child.pid, state: child.state, command: child.command });
      walk(child.pid);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");

/** Starts a lab owner; resolves with its process and endpoints once it serves. */
async function startOwner(): Promise<{ owner: ChildProcess; endpoint: string; apiUrl: string; awsEndpoint: string }> {
  const owner = spawn(NODE22, [OWNER], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    owner.once("exit", (code) => reject(new Error(`the lab owner exited (${code}) before it served`)));
    createInterface({ input: owner.stdout! }).once("line", (text) => resolve({ owner, ...JSON.parse(text) }));
  });
}

const portOf = (url: string) => Number(new URL(url).port);

describe.each([
  ["SIGKILL", (owner: ChildProcess) => owner.kill("SIGKILL")],
  ["SIGHUP (a closed terminal)", (owner: ChildProcess) => owner.kill("SIGHUP")],
  ["an uncaught exception", (owner: ChildProcess) => owner.kill("SIGUSR2")],
])("a lab that ends by %s", (_, end) => {
  it("leaves no process behind within 5 s, frozen and busy environments included, and frees its ports", async () => {
    const { owner, endpoint, apiUrl, awsEndpoint } = await startOwner();
    // One environment frozen while idle, one busy with an invocation when the owner ends.
    expect((await fetch(`${apiUrl}/echo`)).status).toBe(200);
    const busy = fetch(`${apiUrl}/sleep?ms=30000`).catch(() => undefined);
    await eventually(
      "the busy environment has started",
      () => descendants(owner.pid!).filter((p) => p.command.includes(ENVIRONMENT_ENTRY)).length === 2,
      10_000,
    );
    const before = descendants(owner.pid!);
    expect(before.some((p) => p.state === "T" && p.command.includes(ENVIRONMENT_ENTRY))).toBe(true); // the frozen one
    expect(before.filter((p) => p.command.includes("gunicorn"))).toHaveLength(2); // the local AWS: master and worker

    const ended = new Promise((resolve) => owner.once("exit", resolve)); // its own sockets close with it
    end(owner);
    await ended;
    await eventually(
      () => `nothing of the lab runs (still running: ${JSON.stringify(before.filter((p) => alive(p.pid)))})`,
      () => before.every((p) => !alive(p.pid)),
      5_000,
    );
    for (const url of [endpoint, apiUrl, awsEndpoint]) await expect(assertPortFree(portOf(url))).resolves.toBeUndefined();
    await busy;
  }, 60_000);
});

it("removes the read-only task roots of a lab that could not remove them, at the next start", async () => {
  const { owner, apiUrl } = await startOwner();
  expect((await fetch(`${apiUrl}/echo`)).status).toBe(200); // a task root, read-only
  owner.kill("SIGKILL");
  await eventually("the owner has ended", () => !alive(owner.pid!), 5_000);
  const taskRoots = taskRootsDirOf(RUNTIMES.node22);
  const left = readdirSync(taskRoots).filter((dir) => dir.startsWith(`${owner.pid}-`));
  expect(left).toHaveLength(1);
  const lab = await startLab({ template: join(import.meta.dirname, "../fixtures/lab/template.yaml"), parameterOverrides: {} });
  try {
    await lab.lambda.invoke("Echo", Buffer.from("{}")); // the first task root of this lab: its owner folder, after the sweep
    expect(readdirSync(taskRoots).filter((dir) => dir.startsWith(`${owner.pid}-`))).toEqual([]);
  } finally {
    await lab.stop();
  }
}, 60_000);

it("lets owners that start together (sam build --parallel's builds) sweep the same gone owners' folders, each then getting its own", async () => {
  const base = mkdtempSync(join(tmpdir(), "warpstart-owners-"));
  try {
    // Read-only trees of owners that are gone (a pid no process has): enough that the sweeps overlap.
    for (let i = 0; i < 300; i++) {
      const gone = join(base, `${4_000_000 + i}-1`);
      mkdirSync(join(gone, "task", "src"), { recursive: true });
      writeFileSync(join(gone, "task", "src", "index.mjs"), "");
      for (const dir of [join(gone, "task", "src"), join(gone, "task"), gone]) chmodSync(dir, 0o555);
    }
    const sweep = `import { ownedDir } from ${JSON.stringify(pathToFileURL(join(PACKAGE_ROOT, "core/processes.mts")).href)}; console.log(ownedDir(process.argv[1]));`;
    const owners = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
            const child = spawn(NODE22, ["--input-type=module", "-e", sweep, base], { stdio: ["ignore", "pipe", "pipe"] });
            let [stdout, stderr] = ["", ""];
            child.stdout!.on("data", (chunk) => (stdout += chunk));
            child.stderr!.on("data", (chunk) => (stderr += chunk));
            child.on("close", (code) => done({ code, stdout, stderr }));
          }),
      ),
    );
    expect(owners.map(({ code, stderr }) => ({ code, stderr }))).toEqual(Array(4).fill({ code: 0, stderr: "" }));
    const own = owners.map(({ stdout }) => stdout.trim());
    expect(new Set(own).size).toBe(4);
    expect(readdirSync(base).sort()).toEqual(own.map((dir) => basename(dir)).sort());
  } finally {
    removeTree(base);
  }
}, 60_000);

describe("environments killed under traffic", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ template: join(import.meta.dirname, "../fixtures/lab/template.yaml"), parameterOverrides: {} });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  const environments = () => descendants(process.pid).filter((p) => p.command.includes(ENVIRONMENT_ENTRY));
  /** The one environment of the lab, killed; resolves once the lab has reaped it (its exit seen: /proc keeps no entry). */
  const killTheEnvironment = async () => {
    const [env, ...others] = environments();
    expect(others).toEqual([]);
    process.kill(env!.pid, "SIGKILL");
    await eventually(`the lab has reaped environment ${env!.pid}`, () => !existsSync(`/proc/${env!.pid}`));
  };
  const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });
  const INTERNAL_SERVER_ERROR = { status: 500, body: { message: "Internal server error" } };

  it("answers a request whose environment died busy in API Gateway's shape (500), and the next from a new environment", async () => {
    // Sleeper sleeps 4 s of its 5 s timeout, so only the environment's death answers 500.
    const busy = fetch(`${lab.apiUrl}/sleep?ms=4000`);
    await eventually("Sleeper's environment is busy with the request", () => lab.lambda.environments("Sleeper").busy === 1);
    await killTheEnvironment();
    expect(await answer(await busy)).toEqual(INTERNAL_SERVER_ERROR);
    expect(await answer(await fetch(`${lab.apiUrl}/sleep?ms=1`))).toMatchObject({ status: 200, body: { pid: expect.any(Number) } });
  }, 60_000);

  it("drops an idle environment whose process was killed: the next invoke is a cold start that answers, as on Lambda", async () => {
    const event = { queryStringParameters: { ms: "1" } };
    const served = await invokeLogged(lab, "Sleeper", event);
    expect(served.payload).toMatchObject({ statusCode: 200 });
    expect(lab.lambda.environments("Sleeper").idle).toBe(1);
    await killTheEnvironment();
    // Its exit is what drops it: no invoke has come since.
    await eventually("the lab has dropped the dead environment", () => lab.lambda.environments("Sleeper").idle === 0);
    const next = await invokeLogged(lab, "Sleeper", event);
    expect(next.functionError).toBeUndefined();
    expect(next.report!.initDurationMs).toBeGreaterThan(0);
    expect(JSON.parse(next.payload.body).pid).not.toBe(JSON.parse(served.payload.body).pid);
  }, 60_000);

  it("answers every request while environments are killed under it, 200 or that 500, and keeps serving", async () => {
    const answers: Array<{ status: number; body: unknown }> = [];
    const request = async () => {
      answers.push(await answer(await fetch(`${lab.apiUrl}/sleep?ms=20`, { signal: AbortSignal.timeout(15_000) })));
    };
    let killed = 0;
    for (let wave = 0; wave < 8; wave++) {
      const requests = Array.from({ length: 6 }, request);
      await eventually("an environment has started", () => environments().length > 0, 10_000);
      for (const env of environments().slice(0, 2)) {
        process.kill(env.pid, "SIGKILL");
        killed++;
      }
      await Promise.all(requests);
    }
    expect(killed).toBeGreaterThan(0);
    expect(answers).toHaveLength(48);
    for (const reply of answers) {
      if (reply.status === 200) expect(reply.body).toMatchObject({ pid: expect.any(Number) });
      else expect(reply).toEqual(INTERNAL_SERVER_ERROR);
    }
    const after = await fetch(`${lab.apiUrl}/sleep?ms=1`);
    expect(after.status).toBe(200);
  }, 120_000);
});
