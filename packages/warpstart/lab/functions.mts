// Which functions the lab serves and what runs each: the built template's functions on the
// runtime its parameters choose (code written inline in the template as Lambda deploys it), and,
// for a runtime matrix, the same functions on other runtimes (named <LogicalId>-<runtime>), each
// custom runtime with its opt dir prepared.
import { builtHandlerFile } from "../builder/handler.mts";
import { warmLabStartupCache } from "../builder/startup-caches.mts";
import { removeTree } from "../core/processes.mts";
import { ensureInstalled, RUNTIMES, type Runtime, runtimeNamed, runtimeOf, runtimeOrWhyNot } from "../core/runtimes.mts";
import { readTemplate, type TemplateFunction } from "../core/template.mts";
import { inlineCodeDir, prepareLayersDir } from "../emulation/function-environment.mts";
import { installRuntimeSdk, missingRuntimeSdk } from "../emulation/runtime-sdk.mts";
import type { ServedFunction } from "./emulator/lambda-service.mts";
import { prepareOptDir } from "./opt-dir.mts";

/** The lab's name of a function on a runtime other than the template's. */
function functionOnRuntime(logicalId: string, runtime: Pick<Runtime, "name">): string {
  return `${logicalId}-${runtime.name}`;
}

export interface Served {
  functions: ServedFunction[];
  /** The template's functions on a runtime the lab cannot run, each with why: refused, not served. */
  unrunnable: Map<string, string>;
  /** What the template's own functions run on, each once, in the template's order. */
  ownRuntimes: Runtime[];
  /** The lab's name of a template function on a runtime, if it serves it there. */
  nameOn(logicalId: string, runtime: string): string | undefined;
  /** Removes the opt dirs prepared for them. */
  cleanup(): void;
}

export interface ServeOptions {
  /** Template parameters (sam deploy's --parameter-overrides). */
  overrides: Record<string, string>;
  /** Also serve the template's functions on these runtimes. */
  runtimes?: Runtime[];
  /** Functions served beside the template's, on its runtime (e.g. builds in other profiles). */
  extra?: TemplateFunction[];
  /** Serve only these of the template's functions (default: all). */
  only?: string[];
  /** Artifacts built for one of `runtimes` other than the function's own, by `<LogicalId>@<runtime>` (the bench builds them). */
  builtOn?: ReadonlyMap<string, string>;
}

/**
 * The built template's functions on their own runtimes, then on each of `runtimes` the template
 * does not run: a managed runtime as its Runtime (each artifact `builtOn` it where one was built for it),
 * this project's custom runtimes through the template's Runtime parameter (so their layers are the
 * template's), and a runtime given by path as a custom runtime with a layer built for it.
 */
export async function servedFunctions(
  builtTemplate: string,
  { overrides, runtimes = [], extra = [], only, builtOn = new Map() }: ServeOptions,
): Promise<Served> {
  runtimes.forEach(ensureInstalled);
  const fromTemplate = (parameters: Record<string, string>) =>
    readTemplate(builtTemplate, parameters).functions.filter((fn) => !only || only.includes(fn.logicalId));
  const unrunnable = new Map<string, string>();
  const inlineDirs: string[] = [];
  const own = [...fromTemplate(overrides), ...extra].flatMap((fn) => {
    const runsOn = runtimeOrWhyNot(fn);
    if ("whyNot" in runsOn) {
      unrunnable.set(fn.logicalId, runsOn.whyNot);
      return [];
    }
    if (fn.inlineCode === null) return [{ ...fn, runsOn }];
    const codeDir = inlineCodeDir(fn);
    inlineDirs.push(codeDir);
    return [{ ...fn, runsOn, codeDir, whyNotOnDisk: null }];
  });
  for (const fn of own) ensureInstalled(fn.runsOn);
  const ownRuntimes = [...new Set(own.map((fn) => fn.runsOn))];
  // A runtime the template already runs its functions on serves them as they are; an extra function (a build of the bench's), on its own.
  const isExtra = new Set(extra.map((fn) => fn.logicalId));
  const templateRuntimes = new Set(own.filter((fn) => !isExtra.has(fn.logicalId)).map((fn) => fn.runsOn.name));
  const onManaged = (runtime: Runtime) => (fn: TemplateFunction) => ({
    ...fn,
    runtime: runtime.lambdaRuntime,
    runsOn: runtime,
    codeDir: builtOn.get(`${fn.logicalId}@${runtime.name}`) ?? fn.codeDir,
  });
  const names = new Map<string, string>(own.map((fn) => [`${fn.logicalId}@${fn.runsOn.name}`, fn.logicalId]));
  const functions: ServedFunction[] = [
    ...own,
    ...runtimes
      .flatMap((runtime) => [
        ...(templateRuntimes.has(runtime.name) ? [] : onRuntime(runtime)),
        ...(runtime.kind === "managed" ? own.filter((fn) => isExtra.has(fn.logicalId) && fn.runsOn.name !== runtime.name).map(onManaged(runtime)) : []),
      ])
      .map((fn) => {
        const name = functionOnRuntime(fn.logicalId, fn.runsOn);
        names.set(`${fn.logicalId}@${fn.runsOn.name}`, name);
        return { ...fn, logicalId: name, httpPath: null };
      }),
  ];
  /** The template's functions on a runtime they do not run on. */
  function onRuntime(runtime: Runtime): Array<TemplateFunction & { runsOn: Runtime }> {
    return runtime.kind === "managed"
      ? fromTemplate(overrides).map(onManaged(runtime))
      : Object.hasOwn(RUNTIMES, runtime.name)
        ? fromTemplate({ ...overrides, Runtime: runtime.name }).map((fn) => {
            const runsOn = runtimeOf(fn);
            if (runsOn.name !== runtime.name)
              throw new Error(`${builtTemplate}: its Runtime parameter does not put ${fn.logicalId} on ${runtime.name} (it runs on ${runsOn.name}).`);
            return { ...fn, runsOn };
          })
        : fromTemplate(overrides).map((fn) => ({ ...fn, runtime: runtime.lambdaRuntime, layers: [], runsOn: runtime }));
  }
  const optDirs = new Map<string, string>();
  const layerDirs = new Map<string, string>();
  const cleanup = () => {
    for (const dir of [...optDirs.values(), ...layerDirs.values(), ...inlineDirs]) removeTree(dir);
  };
  // What a managed runtime carries of the SDK and its stand-in lacks (a function that names no SDK package of its own): installed once, as the runtime has it.
  for (const runtime of new Set(functions.map((fn) => fn.runsOn))) {
    if (runtime.kind !== "managed") continue;
    const missing = [...new Set(functions.filter((fn) => fn.runsOn === runtime).flatMap((fn) => missingRuntimeSdk(fn.codeDir, runtime)))];
    if (missing.length) await installRuntimeSdk(runtime, missing, (line) => console.error(`== ${line}`));
  }
  try {
    for (const fn of functions) {
      if (fn.runsOn.kind === "managed" && fn.layers.length > 0) {
        const key = fn.layers.map((layer) => layer.contentDir).join("\0");
        if (!layerDirs.has(key))
          layerDirs.set(
            key,
            prepareLayersDir(fn.layers, (why) => console.error(`== ${why}`)),
          );
        fn.optDir = layerDirs.get(key);
      }
      if (fn.runsOn.kind !== "custom") continue;
      if (!optDirs.has(fn.runsOn.name)) optDirs.set(fn.runsOn.name, await prepareOptDir(fn.runsOn, fn.layers));
      fn.optDir = optDirs.get(fn.runsOn.name);
      if (fn.runsOn.startupCache) await warmLabStartupCache(fn.runsOn, fn.codeDir, handlerFileOf(fn));
    }
  } catch (error) {
    cleanup();
    throw error;
  }
  return { functions, unrunnable, cleanup, ownRuntimes, nameOn: (logicalId, runtime) => names.get(`${logicalId}@${runtime}`) };
}

/** The built handler module a warm-up loads; null when there is none to load (the function fails its INIT, as on Lambda). */
function handlerFileOf(fn: TemplateFunction): string | null {
  try {
    return builtHandlerFile(fn);
  } catch {
    return null;
  }
}

/** Runtimes from a comma-separated list of names or paths (the bench's --runtimes). */
export function parseRuntimes(list: string): Runtime[] {
  const runtimes = list
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map(runtimeNamed);
  const names = runtimes.map((runtime) => runtime.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new Error(`runtime ${repeated} is listed twice`);
  return runtimes;
}
