// The values a user gives functions' environment variables, in the file `sam local invoke
// --env-vars` takes: {"<LogicalId>": {"NAME": "value"}, "Parameters": {"NAME": "value"}}, where
// Parameters' apply to every function and a function's own to it alone; as SAM does, only the
// variables its template declares. From the app's seed folder (local-aws/env-vars.json, read by
// every command and build) and, over it, a command's --env-vars file.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../core/options.mts";
import { seedDirOf } from "../core/paths.mts";
import { ownLogicalId, type TemplateFunction } from "../core/template.mts";

/** Name → value per function (its logical id: SAM's full path for a nested application's, or its own), "Parameters" for all. */
export type EnvVars = Record<string, Record<string, string>>;

/** The key of the values every function gets. */
const ALL = "Parameters";

/** The app's own file of environment variable values, beside template.yaml in its seed folder. */
export const envVarsFileOf = (templateFile: string) => join(seedDirOf(templateFile), "env-vars.json");

const FORMAT = 'an object of {"<LogicalId>": {"NAME": "value"}, "Parameters": {"NAME": "value"}}, as sam local invoke --env-vars takes it';

/** One file of values, checked: a mistake in it is one line saying where and what, and nothing runs on half of it. */
function readFile(file: string, from: string): EnvVars {
  let values: unknown;
  try {
    values = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${from} ${file} is not JSON (${(error as Error).message}): write ${FORMAT}`, { cause: error });
  }
  const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === "object" && !Array.isArray(value);
  if (!isObject(values)) throw new UsageError(`${from} ${file} is not ${FORMAT}`);
  for (const [key, variables] of Object.entries(values)) {
    if (!isObject(variables)) throw new UsageError(`${from} ${file}: ${key} is not an object of NAME → value; the file is ${FORMAT}`);
    const notText = Object.entries(variables).find(([, value]) => !["string", "number", "boolean"].includes(typeof value));
    if (notText) throw new UsageError(`${from} ${file}: ${key}.${notText[0]} is not a string, a number or a boolean`);
  }
  return Object.fromEntries(
    Object.entries(values as Record<string, Record<string, unknown>>).map(([key, variables]) => [
      key,
      Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, String(value)])),
    ]),
  );
}

/** The values for a template's functions: its seed folder's, then the command's --env-vars FILE's over them. */
export function readEnvVars(templateFile: string, given?: string): EnvVars {
  const own = envVarsFileOf(templateFile);
  const layers = [existsSync(own) ? readFile(own, "the app's") : {}];
  if (given !== undefined) {
    if (!existsSync(given)) throw new UsageError(`--env-vars ${given} does not exist: give a JSON file of ${FORMAT}`);
    layers.push(readFile(given, "--env-vars"));
  }
  const merged: EnvVars = {};
  for (const layer of layers) for (const [key, variables] of Object.entries(layer)) merged[key] = { ...merged[key], ...variables };
  return merged;
}

/** What the values give one function: Parameters', then its own (by its full name, else its name in its own template; a doctor's copy, by its original's). */
export function envVarsOf(values: EnvVars, fn: Pick<TemplateFunction, "logicalId" | "copyOf">): Record<string, string> {
  return { ...values[ALL], ...(fn.copyOf ? values[fn.copyOf] : {}), ...values[ownLogicalId(fn)], ...values[fn.logicalId] };
}
