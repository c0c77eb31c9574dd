// A SAM app's samconfig.toml, read as SAM CLI reads it, with a TOML parser; and parameter
// overrides in the forms `sam` takes them, from there or from a command line.
import { existsSync, readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import { errorMessage } from "./errors.mts";

/** The two forms of an entry `sam` takes (Key=Value, ParameterKey=Key,ParameterValue=Value), a value quoted when it holds spaces; anything else is a bad entry. */
const ENTRY = /ParameterKey=([^\s,=]+),ParameterValue=("(?:\\.|[^"\\])*"|\S*)|([^\s=]+)=("(?:\\.|[^"\\])*"|\S*)|(\S+)/g;
const unquoted = (value: string) => (/^".*"$/s.test(value) ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value);

/**
 * Parameter overrides as `sam deploy --parameter-overrides` takes them: entries separated by
 * spaces, each Key=Value or ParameterKey=Key,ParameterValue=Value. `bad` says what is wrong with
 * an entry that is neither (it names where the entry came from).
 */
export function parseParameterOverrides(entries: string[], bad: (entry: string) => string): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const text of entries) {
    for (const [whole, longKey, longValue, key, value, other] of text.matchAll(ENTRY)) {
      if (other !== undefined) throw new Error(bad(whole));
      overrides[(longKey ?? key)!] = unquoted((longValue ?? value)!);
    }
  }
  return overrides;
}

type Samconfig = { default?: Record<string, { parameters?: Record<string, unknown> }> };

/** A samconfig.toml as TOML ({} where there is none). */
function samconfigOf(file: string): Samconfig {
  if (!existsSync(file)) return {};
  try {
    return parseToml(readFileSync(file, "utf8")) as Samconfig;
  } catch (error) {
    throw new Error(`${file} is not valid TOML: ${errorMessage(error)}`, { cause: error });
  }
}

/** A setting of `sam <command>` in a samconfig.toml's default environment (its [default.global.parameters] else), or undefined. */
export const samconfigSetting = (file: string, command: string, key: string): unknown => {
  const { default: environment } = samconfigOf(file);
  return environment?.[command]?.parameters?.[key] ?? environment?.global?.parameters?.[key];
};

/**
 * parameter_overrides of a SAM app's samconfig.toml for a command (its default environment's
 * [default.<command>.parameters], else [default.global.parameters]), in SAM's string form
 * ("A=1 B=2") or its array form (["A=1", "B=2"]).
 */
export function samconfigParameterOverrides(file: string, command: "build" | "deploy" = "deploy"): Record<string, string> {
  const config = samconfigOf(file);
  const overrides = config.default?.[command]?.parameters?.parameter_overrides ?? config.default?.global?.parameters?.parameter_overrides ?? [];
  return parseParameterOverrides(
    Array.isArray(overrides) ? overrides.map(String) : [String(overrides)],
    (entry) => `${file}: parameter_overrides entry "${entry}" is not Name=Value`,
  );
}

/**
 * The environment variable through which a `sam build` a command runs hands its builds the
 * parameters it was given (SAM's makefile builder runs each build in the environment of `sam
 * build`, and tells it no parameter): JSON, name → value.
 */
export const BUILD_PARAMETERS_VARIABLE = "WARPSTART_PARAMETER_OVERRIDES";

/** The parameters a build reads its template with: samconfig.toml's for sam build, then those its `sam build` was given (BUILD_PARAMETERS_VARIABLE). */
export function buildParameterOverrides(samconfigFile: string): Record<string, string> {
  const given = process.env[BUILD_PARAMETERS_VARIABLE];
  return { ...samconfigParameterOverrides(samconfigFile, "build"), ...(given ? (JSON.parse(given) as Record<string, string>) : {}) };
}

/** Parameter overrides in the string form `sam` takes (a value with spaces or quotes quoted). */
export const parameterOverridesText = (overrides: Record<string, string>) =>
  Object.entries(overrides)
    .map(([name, value]) => `${name}=${/[\s"\\]/.test(value) || value === "" ? `"${value.replace(/["\\]/g, "\\$&")}"` : value}`)
    .join(" ");
