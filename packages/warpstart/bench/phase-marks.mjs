// Loaded with `--import` (NODE_OPTIONS) into a function's process by `npm run phases` only: it
// appends "<mark> <monotonic ns>" lines to $WARPSTART_PHASE_MARKS as the cold start passes each
// point the lab cannot see from outside. process.hrtime is CLOCK_MONOTONIC, the lab's clock too.
// Only modules Node has loaded before any user code (fs, diagnostics_channel, module), so the
// marks add no builtin the function would not load anyway.
const { appendFileSync } = process.getBuiltinModule("node:fs");
const { subscribe } = process.getBuiltinModule("node:diagnostics_channel");
const { registerHooks } = process.getBuiltinModule("node:module");
const { pathToFileURL } = process.getBuiltinModule("node:url");

const marksFile = process.env.WARPSTART_PHASE_MARKS;
const seen = new Set();
const mark = (name) => {
  if (seen.has(name)) return;
  seen.add(name);
  appendFileSync(marksFile, `${name} ${process.hrtime.bigint()}\n`);
};

mark("preload");

// Profiled runs (npm run phases -- --cpu-prof): Node writes the --cpu-prof profile only when the
// process exits, so the lab's SIGTERM at shutdown ends it by exiting.
if (process.env.NODE_OPTIONS?.includes("--cpu-prof")) process.once("SIGTERM", () => process.exit(0));

// The runtime client imports the handler from the task root: its first module resolved there.
const taskRoot = pathToFileURL(`${process.env.LAMBDA_TASK_ROOT}/`).href;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.startsWith(taskRoot)) mark("handler-import");
    return resolved;
  },
});

// Warp's chunk loader says how far it got (src/warp/sdk-chunk-loader.mts; the channel's name
// comes from cli/phases.mts, so it is written once, in src/contract.mts).
subscribe(process.env.WARPSTART_SDK_CHUNK_CHANNEL, (point) => mark(`sdk-chunk-${point}`));

// The function's AWS calls go over HTTPS; the runtime client's own calls do not.
subscribe("http.client.request.start", ({ request }) => request.protocol === "https:" && mark("aws-request"));
subscribe("http.client.response.finish", ({ request }) => request.protocol === "https:" && mark("aws-response"));
