// A Worker the build-time INIT server (init-server-program.mjs) makes ahead of the next INIT, while
// that function bundles: a Worker's start under qemu is a third of its INIT. It waits for the
// INIT's request, takes the function's arguments and environment as a Worker made for it would
// have had them (its module paths made again), loads the preloads the environment's NODE_OPTIONS
// names (which a Worker made for it would have loaded as it started), then runs
// code-cache-child.mjs as that Worker would.
import { once } from "node:events";
import Module, { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";

const asked = once(parentPort, "message");
parentPort.postMessage("ready"); // a Worker that failed to start never says so, and serves no INIT
const [{ argv, env, preloads }] = await asked;
parentPort.unref();
for (const name of Object.keys(process.env)) delete process.env[name];
Object.assign(process.env, env);
process.argv.splice(1, Infinity, workerData.child, ...argv);
// The module paths Node makes of NODE_PATH and HOME as a Worker starts: the function's task root is among them.
Module._initPaths();
const preload = createRequire(join(process.cwd(), "[preload]"));
for (const file of preloads) preload(file);
await import(pathToFileURL(workerData.child).href);
