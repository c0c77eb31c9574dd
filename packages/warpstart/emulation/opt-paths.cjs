// Loaded with --require (NODE_OPTIONS) into a function whose code imports a layer's file by its
// absolute path (import ... from "/opt/nodejs/config.mjs"), where Lambda extracts its layers: in the
// lab they are in WARPSTART_OPT_DIR, so a specifier under /opt resolves there, for require() and
// import alike. Only such functions load it: a hook costs INIT what Lambda's does not pay.
"use strict";
const Module = require("node:module");

const optDir = process.env.WARPSTART_OPT_DIR;
const OPT = "/opt";
const OPT_URL = "file:///opt";
/** A specifier under /opt (a path or a file: URL), moved to the lab's opt folder; anything else as it is. */
const mapped = (specifier) => {
  if (typeof specifier !== "string") return specifier;
  if (specifier === OPT || specifier.startsWith(`${OPT}/`)) return optDir + specifier.slice(OPT.length);
  if (specifier.startsWith(`${OPT_URL}/`)) return `file://${optDir}${specifier.slice(OPT_URL.length)}`;
  return specifier;
};

if (typeof Module.registerHooks === "function") {
  // Node 22.15 and later: one synchronous hook, in this thread, for require() and import.
  Module.registerHooks({ resolve: (specifier, context, next) => next(mapped(specifier), context) });
} else {
  // Older Node: require() through its resolver, import() through a loader of its own.
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return resolveFilename.call(this, mapped(request), ...rest);
  };
  const hooks = `const optDir = ${JSON.stringify(optDir)};
export async function resolve(specifier, context, next) {
  if (specifier === "/opt" || specifier.startsWith("/opt/")) return next(optDir + specifier.slice(4), context);
  if (specifier.startsWith("file:///opt/")) return next("file://" + optDir + specifier.slice(11), context);
  return next(specifier, context);
}`;
  Module.register?.(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
