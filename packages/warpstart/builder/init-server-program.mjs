// A long-lived Node for build-time INITs under qemu (init-server.mts starts it, one per Node,
// architecture, flags and process-wide environment): a `sam build` runs one `warpstart build` per
// function, and each arm64 INIT in a fresh Node under qemu paid for that Node's start and for
// qemu translating it again. Here each INIT runs code-cache-child.mjs in a Worker of its own (a
// V8 isolate of its own, with the function's environment and module paths), one at a time, in the
// function's folder (the process's working directory, which a Worker cannot change).
//   node <runtime flags> init-server-program.mjs <socket> <child>
// A request is one JSON line on a connection of its own: { argv, env, cwd, timeoutMs }; the answer
// one JSON line: { code, output } (the Worker's exit code, and what it wrote then what it threw).
// Its first line on stdout says "ready", or "taken" when another server answers on the socket; it
// stops once no INIT has come for IDLE_MS.
import { rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { createInterface } from "node:readline";
import { inspect } from "node:util";
import { Worker } from "node:worker_threads";

/** How long it waits for the next INIT: longer than SAM takes between two functions' builds. */
const IDLE_MS = 20_000;

const [socketPath, child] = process.argv.slice(2);

let idle;
const stopLater = () => {
  clearTimeout(idle);
  idle = setTimeout(() => {
    server.close();
    rmSync(socketPath, { force: true });
    process.exit(0);
  }, IDLE_MS);
};

/** One INIT in a Worker: its exit code and its output, the error it threw last. */
function runInit({ argv, env, cwd, timeoutMs }) {
  process.chdir(cwd);
  return new Promise((resolve) => {
    const worker = new Worker(child, { argv, env, stdout: true, stderr: true });
    const output = [];
    worker.stdout.on("data", (data) => output.push(data));
    worker.stderr.on("data", (data) => output.push(data));
    let thrown = "";
    worker.on("error", (error) => {
      thrown = `${inspect(error)}\n`;
    });
    const timer = setTimeout(() => {
      thrown = `Error: the build-time INIT did not end within ${timeoutMs} ms\n`;
      void worker.terminate();
    }, timeoutMs);
    worker.on("exit", (code) => {
      clearTimeout(timer);
      // What the Worker wrote reaches its streams after it exits: read them to their end.
      let open = 2;
      const done = () => {
        if (--open === 0) resolve({ code, output: `${Buffer.concat(output).toString("utf8")}${thrown}` });
      };
      for (const stream of [worker.stdout, worker.stderr]) {
        if (stream.readableEnded) done();
        else stream.once("end", done);
      }
    });
  });
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
stopLater();
process.stdout.write("ready\n");
