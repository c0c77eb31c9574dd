// A SAM app's samconfig.toml, read as SAM CLI reads it, with a TOML parser.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { errorMessage } from "./cli.mts";
import { PROJECT_ROOT } from "./paths.mts";

/**
 * parameter_overrides of a SAM app's samconfig.toml for a command (its default environment's
 * [default.<command>.parameters], else [default.global.parameters]), in SAM's string form
 * ("A=1 B=2") or its array form (["A=1", "B=2"]).
 */
export function samconfigParameterOverrides(file = join(PROJECT_ROOT, "samconfig.toml"), command: "build" | "deploy" = "deploy"): Record<string, string> {
  if (!existsSync(file)) return {};
  let config: { default?: Record<string, { parameters?: { parameter_overrides?: unknown } }> };
  try {
    config = parseToml(readFileSync(file, "utf8")) as typeof config;
  } catch (error) {
    throw new Error(`${file} is not valid TOML: ${errorMessage(error)}`);
  }
  const overrides = config.default?.[command]?.parameters?.parameter_overrides ?? config.default?.global?.parameters?.parameter_overrides ?? [];
  const pairs = Array.isArray(overrides) ? overrides.map(String) : String(overrides).split(/\s+/);
  return Object.fromEntries(
    pairs.filter(Boolean).map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new Error(`${file}: parameter_overrides entry "${pair}" is not Name=Value`);
      return [pair.slice(0, at), pair.slice(at + 1).replace(/^"(.*)"$/, "$1")];
    }),
  );
}
