// The template's parameters as a user gives them to a command that starts a lab: samconfig.toml's
// parameter_overrides (as sam deploy reads them), and over them --parameter-overrides, in the
// forms `sam` takes. Every such command declares the option through PARAMETER_OPTIONS.
import { join } from "node:path";
import { errorMessage } from "../core/errors.mts";
import { type OptionSpec, UsageError } from "../core/options.mts";
import { appDirOf } from "../core/paths.mts";
import { parseParameterOverrides, samconfigParameterOverrides } from "../core/samconfig.mts";
import { templateAsWritten } from "../core/template.mts";

/** The option of every command that reads the template's parameters; given more than once, the entries add up. */
export const PARAMETER_OPTIONS = {
  "parameter-overrides": {
    value: '"A=1 B=2"',
    multiple: true,
    help: "the template's parameters, as sam deploy takes them (also ParameterKey=A,ParameterValue=1),\nover samconfig.toml's parameter_overrides",
  },
} as const satisfies Record<string, OptionSpec>;

/** The option of the commands that run a template's functions: values for their environment variables, as sam local invoke takes them. */
export const ENV_VARS_OPTION = {
  "env-vars": {
    value: "FILE",
    help: 'values for the functions\' environment variables, as sam local invoke --env-vars takes them\n({"<LogicalId>": {"NAME": "value"}, "Parameters": {"NAME": "value"}}), over the app\'s local-aws/env-vars.json',
  },
} as const satisfies Record<string, OptionSpec>;

/**
 * The parameters a lab of `templateFile` (source or built) runs with: samconfig.toml's for
 * `command`, then the flag's. A flag naming a parameter the template does not declare is a
 * UsageError, as CloudFormation refuses it.
 */
export function parameterOverridesFrom(
  values: { "parameter-overrides"?: string[] },
  templateFile: string,
  command: "build" | "deploy" = "deploy",
): Record<string, string> {
  const given = values["parameter-overrides"] ?? [];
  let flag: Record<string, string>;
  try {
    flag = parseParameterOverrides(given, (entry) => `"${entry}" is neither Name=Value nor ParameterKey=Name,ParameterValue=Value`);
  } catch (error) {
    throw new UsageError(`--parameter-overrides: ${errorMessage(error)}`, { cause: error });
  }
  if (given.length) {
    const declared = Object.keys(templateAsWritten(templateFile).Parameters ?? {});
    const unknown = Object.keys(flag).filter((name) => !declared.includes(name));
    if (unknown.length)
      throw new UsageError(`--parameter-overrides: the template declares no parameter ${unknown.join(", ")}; its parameters: ${declared.join(", ") || "none"}`);
  }
  return { ...samconfigParameterOverrides(join(appDirOf(templateFile), "samconfig.toml"), command), ...flag };
}
