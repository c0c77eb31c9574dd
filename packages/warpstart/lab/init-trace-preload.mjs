// Loaded with `--import` (NODE_OPTIONS) into a function's process by lab/init-trace.mts: it
// appends to $WARPSTART_INIT_TRACE "<mark> <monotonic ns>" lines as INIT passes the points the
// lab cannot see from outside, then "loaded <entry>" for each process.moduleLoadList entry the
// handler's import added. process.hrtime is CLOCK_MONOTONIC, the lab's clock too.
// Only modules Node has loaded before any user code (fs, diagnostics_channel, url): the trace
// adds no builtin to those it reports.
const { appendFileSync } = process.getBuiltinModule("node:fs");
const { subscribe, tracingChannel } = process.getBuiltinModule("node:diagnostics_channel");
const { pathToFileURL } = process.getBuiltinModule("node:url");

const traceFile = process.env.WARPSTART_INIT_TRACE;
const write = (line) => appendFileSync(traceFile, `${line}\n`);
const mark = (name) => write(`${name} ${process.hrtime.bigint()}`);

// The runtime client imports the handler by its absolute path (tracing says the specifier as
// given, not a URL); a URL is what other loaders pass. Its first module under the task root.
const taskRoot = `${process.env.LAMBDA_TASK_ROOT}/`;
const taskRootUrl = pathToFileURL(taskRoot).href;
const inTaskRoot = (specifier) => String(specifier).startsWith(taskRoot) || String(specifier).startsWith(taskRootUrl);

/** The tracing message of the handler's import (or require) while it runs. */
let handlerLoad = null;
let handlerSeen = false;
let loadedBeforeHandler = 0;
let awsRequestSeen = false;

function loadStarted(message, specifier) {
  if (handlerSeen || !inTaskRoot(specifier)) return;
  handlerSeen = true;
  handlerLoad = message;
  loadedBeforeHandler = process.moduleLoadList.length;
  mark("handler-start");
}

// Fires once the import has resolved, its top-level await included, or failed.
function loadEnded(message) {
  if (message !== handlerLoad) return;
  handlerLoad = null;
  mark("handler-end");
  for (const entry of process.moduleLoadList.slice(loadedBeforeHandler)) write(`loaded ${entry}`);
}

// The runtime client loads an ES module, a .js or a .cjs file with import(); require only for a
// handler it finds no file for (a package under node_modules).
tracingChannel("module.import").subscribe({ start: (message) => loadStarted(message, message.url), asyncEnd: loadEnded });
tracingChannel("module.require").subscribe({ start: (message) => loadStarted(message, message.id), end: loadEnded });

// The function's AWS calls go over HTTPS; the runtime client's own calls do not.
subscribe("http.client.request.start", ({ request }) => {
  if (awsRequestSeen || handlerLoad === null || request.protocol !== "https:") return;
  awsRequestSeen = true;
  mark("aws-request");
});
