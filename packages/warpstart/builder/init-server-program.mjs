// A long-lived Node for build-time INITs under qemu (init-server.mts starts it, one per Node,
// architecture, flags and process-wide environment): a `sam build` runs one `warpstart build` per
// function, and each arm64 INIT in a fresh Node under qemu paid for that Node's start and for
// qemu translating it again. Here each INIT runs code-cache-child.mjs in a Worker of its own (a
// V8 isolate of its own, with the function's environment and module paths), one at a time, in the
// function's folder (the process's working directory, which a Worker cannot change).
//   node <runtime flags> init-server-program.mjs <socket> <child>
// A request is one JSON line on a connection of its own: { argv, env, cwd, timeoutMs }; the answer
// one JSON line: { code, output, spare } (the Worker's exit code, what it wrote then what it threw,
// and whether it was the one made ahead: init-server-spare.mjs).
// Its first line on stdout says "ready", or "taken" when another server answers on the socket; it
// stops once no INIT has come for IDLE_MS.
import { rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { inspect } from "node:util";
import { Worker } from "node:worker_threads";

/** How long it waits for the next INIT: longer than SAM takes between two functions' builds. */
const IDLE_MS = 20_000;

const [socketPath, child] = process.argv.slice(2);
const SPARE = new URL("init-server-spare.mjs", import.meta.url);

let idle;
const stopLater = () => {
  clearTimeout(idle);
  idle = setTimeout(() => {
    server.close();
    rmSync(socketPath, { force: true });
    process.exit(0);
  }, IDLE_MS);
};

/** A Worker with what it writes gathered: its exit code and output (and what it threw) once it ends. */
function watched(file, options) {
  const worker = new Worker(file, { ...options, stdout: true, stderr: true });
  const output = [];
  worker.stdout.on("data", (data) => output.push(data));
  worker.stderr.on("data", (data) => output.push(data));
  const run = { worker, thrown: "", exited: false, ended: undefined };
  worker.on("error", (error) => {
    run.thrown = `${inspect(error)}\n`;
  });
  run.ended = new Promise((resolve) => {
    worker.on("exit", (code) => {
      run.exited = true;
      // What the Worker wrote reaches its streams after it exits: read them to their end.
      let open = 2;
      const done = () => {
        if (--open === 0) resolve({ code, output: `${Buffer.concat(output).toString("utf8")}${run.thrown}` });
      };
      for (const stream of [worker.stdout, worker.stderr]) {
        if (stream.readableEnded) done();
        else stream.once("end", done);
      }
    });
  });
  return run;
}

/**
 * The files NODE_OPTIONS preloads, where it says nothing else (the lab's preloads:
 * emulation/function-environment.mts); null otherwise, for a Worker made for the INIT to read.
 */
function preloadsIn(nodeOptions = "") {
  const options = nodeOptions.split(/\s+/).filter(Boolean);
  return options.every((option) => option.startsWith("--require=")) ? options.map((option) => option.slice("--require=".length)) : null;
}

/**
 * What Node reads of its environment as a Worker starts (its NODE_ variables) and the spare cannot
 * take later: all but NODE_OPTIONS (it loads the preloads) and NODE_PATH (it makes the module paths
 * again). A spare serves an INIT whose environment agrees with the one it started with on these.
 */
const startsAlike = (a, b) =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((name) => name.startsWith("NODE_") && name !== "NODE_OPTIONS" && name !== "NODE_PATH")
    .every((name) => a[name] === b[name]);

const withoutPreloads = ({ NODE_OPTIONS, ...env }) => env;

/** The Worker made ahead for the next INIT (init-server-spare.mjs), with the environment it started with. */
let spare = null;
const makeSpare = (env) => {
  spare = null;
  try {
    // It starts in the server's own folder: a Worker reads the process's folder as it starts, and the last INIT's may be gone by then.
    process.chdir(dirname(socketPath));
    const run = watched(SPARE, { env: withoutPreloads(env), workerData: { child } });
    // Whether it started: it says so once it waits for its INIT; one that failed to start ends first.
    const started = new Promise((resolve) => {
      run.worker.once("message", () => resolve(true));
      run.worker.once("exit", () => resolve(false));
    });
    spare = Object.assign(run, { env, started });
  } catch {
    // none: the next INIT gets a Worker of its own
  }
};

/** One INIT in a Worker (the spare, where it fits): its exit code and its output, the error it threw last; and whether the spare ran it. */
async function runInit({ argv, env, cwd, timeoutMs }) {
  process.chdir(cwd);
  const preloads = preloadsIn(env.NODE_OPTIONS);
  const fromSpare = spare !== null && preloads !== null && startsAlike(spare.env, env) && (await spare.started) && !spare.exited;
  if (spare && !fromSpare) void spare.worker.terminate();
  const run = fromSpare ? spare : watched(child, { argv, env });
  if (fromSpare) run.worker.postMessage({ argv, env, preloads });
  spare = null;
  const timer = setTimeout(() => {
    run.thrown = `Error: the build-time INIT did not end within ${timeoutMs} ms\n`;
    void run.worker.terminate();
  }, timeoutMs);
  const answer = await run.ended;
  clearTimeout(timer);
  // The next function's INIT likely comes with an environment like this one's.
  if (preloads) makeSpare(env);
  return { ...answer, spare: fromSpare };
}

// One INIT at a time: each needs the process's working directory to be its function's folder.
let queue = Promise.resolve();
let pending = 0;
const server = createServer((socket) => {
  socket.on("error", () => {}); // a build that ended: its answer goes nowhere
  createInterface({ input: socket }).once("line", (line) => {
    clearTimeout(idle);
    pending += 1;
    queue = queue.then(async () => {
      let answer;
      try {
        answer = await runInit(JSON.parse(line));
      } catch (error) {
        answer = { code: 1, output: `${inspect(error)}\n` };
      }
      socket.end(`${JSON.stringify(answer)}\n`);
      if (--pending === 0) stopLater();
    });
  });
});

/** Whether a server answers on the socket already. */
const answers = () =>
  new Promise((resolve) => {
    const socket = createConnection(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/** Claims the socket: of two servers started at once, the second finds it taken. */
async function listen() {
  try {
    await new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, resolve);
    });
    return true;
  } catch (error) {
    if (error.code !== "EADDRINUSE") throw error;
    if (await answers()) return false;
    rmSync(socketPath, { force: true }); // left by a server that ended without removing it
    return listen();
  }
}

if (!(await listen())) {
  process.stdout.write("taken\n");
  process.exit(0);
}
// The first INIT's Worker starts with the server (its environment: the server's, which a function's shares at start).
makeSpare({ ...process.env });
stopLater();
process.stdout.write("ready\n");
