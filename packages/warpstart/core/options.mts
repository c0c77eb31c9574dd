// What every command of the project does the same way: its options declared once, as data (the
// usage, the checks of a value, the combinations that are mistakes, and the parsing all come from
// that declaration); bad flags exit 2 with the usage, other failures exit 1 with one line.
import { parseArgs } from "node:util";
import { errorMessage } from "./errors.mts";
import { DEFAULT_TEMPLATE, samTemplateHere } from "./paths.mts";
import { notFunctionsOf, type SamTemplate } from "./template.mts";

/** A mistake in the command line: the message, then the usage, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** One option of a command, as its usage shows it and its parser checks it. */
export interface OptionSpec {
  /** The name of its value in the usage (FILE, N, LIST); an option without one is a switch. */
  value?: string;
  /** What it does, in the usage; later lines are indented under the first. */
  help: string;
  /** Its value when not given; shown in the usage. */
  default?: string;
  /** Its value when not given, worked out when the command runs (`default` is what the usage shows). */
  defaultFrom?: () => string;
  /** Given more than once, the values add up. */
  multiple?: true;
  /** A whole number from the first to the second (no upper bound when absent). */
  whole?: readonly [number, number?];
  /** The values it takes. */
  oneOf?: readonly string[];
  /** Still accepted, not shown: an old name of another option. */
  hidden?: true;
  /** The command cannot run without it. */
  required?: true;
}

type OptionName<O> = keyof O & string;

/**
 * A combination that is a mistake: when any option of `given` is given, `message` if one of
 * `excludes` is given too, or if `needs` is not. `{option}` in the message is the one given.
 */
interface Rule<K extends string> {
  given: K | readonly K[];
  excludes?: readonly K[];
  needs?: K;
  message: string;
}

/** A command of `warpstart`: its name, a line for the list of commands, its options and what follows them. */
export interface CommandSpec<O extends Record<string, OptionSpec>> {
  name: string;
  summary: string;
  options: O;
  /** What the command takes after its options: the usage's text, and the message when the count is wrong. */
  positionals?: { usage: string; help: string; min?: number; max?: number; missing?: string };
  rules?: readonly Rule<OptionName<O>>[];
}

/** The parsed value of an option: a switch is a boolean, a whole number a number, a multiple a list. */
type ValueOf<S extends OptionSpec> = S extends { value: string }
  ? S extends { multiple: true }
    ? string[]
    : S extends { whole: readonly unknown[] }
      ? S extends { default: string }
        ? number
        : number | undefined
      : S extends { default: string } | { required: true }
        ? string
        : string | undefined
  : boolean;

export type Values<O extends Record<string, OptionSpec>> = { [K in keyof O]: ValueOf<O[K]> };

export interface Parsed<O extends Record<string, OptionSpec>> {
  values: Values<O>;
  positionals: string[];
}

/** The usage of a command: the line of its options, then one paragraph per option. */
export function usageOf<O extends Record<string, OptionSpec>>(spec: CommandSpec<O>, program = "warpstart"): string {
  const shown = Object.entries(spec.options as Record<string, OptionSpec>).filter(([, option]) => !option.hidden);
  const flag = (name: string, option: OptionSpec) => `--${name}${option.value ? ` ${option.value}` : ""}`;
  const line = [
    `usage: ${program} ${spec.name}`,
    ...shown.map(([name, option]) => (option.required ? flag(name, option) : `[${flag(name, option)}]`)),
    spec.positionals?.usage,
  ]
    .filter(Boolean)
    .join(" ");
  const rows: [string, string][] = shown.map(([name, option]) => [
    flag(name, option),
    option.default === undefined ? option.help : `${option.help} (default: ${option.default})`,
  ]);
  if (spec.positionals) rows.push([spec.positionals.usage, spec.positionals.help]);
  // The help starts in one column; an option too long for it has its help on the next line.
  const width = Math.min(Math.max(...rows.map(([left]) => left.length)) + 2, 20);
  const indent = `\n${" ".repeat(width + 2)}`;
  const paragraphs = rows.map(([left, help]) => `  ${left.length < width ? left.padEnd(width) : `${left}${indent}`}${help.split("\n").join(indent)}`);
  return [`${spec.summary}`, "", line, ...paragraphs].join("\n");
}

/** The command line `args` read by a command's declaration; a UsageError on any mistake. */
export function parseCommand<O extends Record<string, OptionSpec>>(spec: CommandSpec<O>, args: string[]): Parsed<O> {
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, option]) => [name, { type: option.value ? "string" : "boolean", multiple: option.multiple ?? false }] as const),
  );
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, allowPositionals: spec.positionals !== undefined, strict: true }) as typeof parsed;
  } catch (error) {
    throw new UsageError(errorMessage(error), { cause: error });
  }
  // What the command line gave: a default is not given.
  const given = new Set(Object.keys(parsed.values).filter((name) => parsed.values[name] !== false)) as Set<OptionName<O>>;
  for (const rule of spec.rules ?? []) {
    const trigger = ([] as string[]).concat(rule.given).find((name) => given.has(name as OptionName<O>));
    if (trigger === undefined) continue;
    const broken = rule.excludes?.some((name) => given.has(name)) || (rule.needs !== undefined && !given.has(rule.needs));
    if (broken) throw new UsageError(rule.message.replaceAll("{option}", `--${trigger}`));
  }
  const values: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.required && parsed.values[name] === undefined) throw new UsageError(`--${name} is required: ${option.help}`);
    const raw = parsed.values[name] ?? (option.value ? (option.defaultFrom?.() ?? option.default) : false) ?? (option.multiple ? [] : undefined);
    if (typeof raw === "string" && option.oneOf && !option.oneOf.includes(raw)) throw new UsageError(`--${name} must be ${orList(option.oneOf)}, not "${raw}"`);
    values[name] = typeof raw === "string" && option.whole ? wholeNumber(name, raw, ...option.whole) : raw;
  }
  const count = parsed.positionals.length;
  const { min = 0, max = Number.POSITIVE_INFINITY } = spec.positionals ?? {};
  if (count < min) throw new UsageError(spec.positionals?.missing ?? `give ${spec.positionals?.usage}`);
  if (count > max) throw new UsageError(`${spec.positionals?.usage} takes ${max === 1 ? "one" : max} at a time, not ${parsed.positionals.join(", ")}`);
  return { values: values as Values<O>, positionals: parsed.positionals };
}

/** "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** A command: its declaration, and what it does with a command line that passed it. */
export interface Command {
  spec: CommandSpec<Record<string, OptionSpec>>;
  run(parsed: Parsed<Record<string, OptionSpec>>): Promise<number>;
}

/**
 * A command of `warpstart`, declared once: the compiler checks the rules' option names and `run`
 * against the options; the command it returns is any command (a rule's option names make the
 * declaration's type invariant in its options).
 */
export function defineCommand<const O extends Record<string, OptionSpec>>(spec: CommandSpec<O>, run: (parsed: Parsed<O>) => Promise<number>): Command {
  return { spec, run } as unknown as Command;
}

/**
 * Runs a command on `args` and exits with what it returns: 0 with the usage on --help, 2 on a
 * UsageError (with the usage), 1 on anything else (one line).
 */
export function runCommand({ spec, run }: Command, args: string[]): void {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usageOf(spec));
    process.exit(0);
  }
  Promise.resolve()
    .then(() => run(parseCommand(spec, args)))
    .then(
      (code) => process.exit(code),
      (error: unknown) => {
        console.error(error instanceof UsageError ? `error: ${error.message}\n\n${usageOf(spec)}` : `error: ${errorMessage(error)}`);
        process.exit(error instanceof UsageError ? 2 : 1);
      },
    );
}

/** A whole number flag from `min` (undefined when absent); a UsageError otherwise. */
export function wholeNumber(flag: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${flag} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ""}, not "${raw}"`);
  }
  return value;
}

/** The items of a comma-separated flag (--functions A,B), trimmed, empty ones left out. */
export function commaList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A UsageError naming the functions `names` has that the template does not, and the ones it has. */
export function assertFunctionsOf(template: Pick<SamTemplate, "file" | "functions">, names: string[]): void {
  const message = notFunctionsOf(template, names);
  if (message) throw new UsageError(message);
}

/** The options most commands share, declared once. */
export const TEMPLATE_OPTION = {
  template: {
    value: "FILE",
    help: "the SAM template, as sam reads it: template.yaml, .yml or .json here",
    default: DEFAULT_TEMPLATE,
    defaultFrom: samTemplateHere,
  },
} as const satisfies Record<string, OptionSpec>;

export const NO_BUILD_OPTION = {
  "no-build": { help: "use what sam build last built (.aws-sam/build) instead of running it" },
} as const satisfies Record<string, OptionSpec>;

/** --functions, and --variants, its old name (VARIANTS_RULE: one of them). */
export const FUNCTIONS_OPTIONS = {
  functions: { value: "LIST", help: "the template's functions, by logical id, comma-separated (default: all)" },
  variants: { value: "LIST", help: "--functions' old name", hidden: true },
} as const satisfies Record<string, OptionSpec>;

export const VARIANTS_RULE = { given: "variants", excludes: ["functions"], message: "--variants is --functions' old name: give one of them" } as const;
