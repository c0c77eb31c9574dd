// The commands' options, declared once as data: the parser and the usage both come from the
// declaration, checked here in process; then each command's own declaration on the mistakes a
// user makes.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS } from "../../cli/commands.mts";
import { type Command, defineCommand, type OptionSpec, parseCommand, TEMPLATE_OPTION, UsageError, usageOf } from "../../core/options.mts";

/** Every command of `warpstart`, by the name a user types (loaded one by one: jest's module linker does not take them at once). */
const commands: Record<string, Command> = {};
for (const [name, load] of Object.entries(COMMANDS)) commands[name] = (await load()).command;
const [aws, bench, build, doctor, invoke, lab, load, keepalive, phases, pin] = (
  ["aws", "bench", "build", "doctor", "invoke", "lab", "load", "keepalive", "phases", "warp:pin"] as const
).map((name) => commands[name]!);

const { spec } = defineCommand(
  {
    name: "try",
    summary: "A command to try the parser on.",
    options: {
      template: { value: "FILE", default: "template.yaml", help: "the template" },
      rounds: { value: "N", whole: [1, 10], help: "rounds" },
      mode: { value: "M", oneOf: ["fast", "slow"], help: "the mode" },
      tag: { value: "T", multiple: true, help: "a tag" },
      stack: { value: "NAME", help: "a stack" },
      local: { help: "run locally" },
      fix: { help: "fix it" },
      "dry-run": { help: "with --fix, write nothing" },
      old: { value: "LIST", hidden: true, help: "--new's old name" },
    },
    positionals: { usage: "[Function ...]", help: "the functions", max: 2 },
    rules: [
      { given: ["local", "rounds"], excludes: ["stack"], message: "{option} is for the lab, not a --stack" },
      { given: "dry-run", needs: "fix", message: "--dry-run goes with --fix" },
      { given: "template", excludes: ["local"], message: "--template is a stack's" },
    ],
  },
  async () => 0,
);
const parse = (...args: string[]) => parseCommand(spec, args);
const mistake = (...args: string[]) => {
  try {
    parse(...args);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${args.join(" ")} parsed`);
};

describe("parseCommand", () => {
  it("gives each option its type: defaults, switches off, whole numbers as numbers, repeated values as a list", () => {
    expect(parse("--rounds", "3", "--tag", "a", "--tag", "b", "Fn")).toEqual({
      values: {
        template: "template.yaml",
        rounds: 3,
        mode: undefined,
        tag: ["a", "b"],
        stack: undefined,
        local: false,
        fix: false,
        "dry-run": false,
        old: undefined,
      },
      positionals: ["Fn"],
    });
  });

  it.each([
    [["--rounds", "0"], '--rounds must be a whole number from 1 to 10, not "0"'],
    [["--rounds", "x"], '--rounds must be a whole number from 1 to 10, not "x"'],
    [["--mode", "warp"], '--mode must be fast or slow, not "warp"'],
    [["--local", "--stack", "s"], "--local is for the lab, not a --stack"],
    [["--rounds", "2", "--stack", "s"], "--rounds is for the lab, not a --stack"],
    [["--dry-run"], "--dry-run goes with --fix"],
    [["A", "B", "C"], "[Function ...] takes 2 at a time, not A, B, C"],
  ])("%j: %s", (args, message) => {
    expect(mistake(...args)).toBe(message);
  });

  it("names an option it does not know", () => {
    expect(mistake("--bogus")).toContain("Unknown option '--bogus'");
  });

  it("counts an option as given only when the command line gives it, not by its default", () => {
    expect(parse("--local").values).toMatchObject({ template: "template.yaml", local: true });
    expect(mistake("--template", "template.yaml", "--local")).toBe("--template is a stack's");
  });

  it("takes a hidden option, and a rule's other side alone", () => {
    expect(parse("--old", "A", "--stack", "s", "--fix", "--dry-run").values).toMatchObject({ old: "A", stack: "s", fix: true, "dry-run": true });
  });
});

describe("usageOf", () => {
  const usage = usageOf(spec);

  it("starts with the summary and a line of every shown option, then one paragraph each, the default said", () => {
    expect(usage.split("\n").slice(0, 3)).toEqual([
      "A command to try the parser on.",
      "",
      "usage: warpstart try [--template FILE] [--rounds N] [--mode M] [--tag T] [--stack NAME] [--local] [--fix] [--dry-run] [Function ...]",
    ]);
    expect(usage).toContain("  --template FILE  the template (default: template.yaml)\n");
    expect(usage).toContain("  [Function ...]   the functions");
    expect(usage).not.toContain("--old");
  });
});

describe("each command's declaration", () => {
  it("is named as a user types it, and has a usage naming every option it parses but the hidden ones", () => {
    for (const [typed, { spec: command }] of Object.entries(commands)) {
      expect(command.name).toBe(typed);
      const usage = usageOf(command);
      for (const [name, option] of Object.entries<OptionSpec>(command.options)) expect(usage.includes(`--${name}`)).toBe(!option.hidden);
    }
  });

  it.each([
    [lab, ["--runtime", "quickjs"], '--runtime must be node18, node20, node22, node24, deno or bun, not "quickjs"'],
    [lab, ["--idle-timeout", "0"], '--idle-timeout must be a whole number from 1, not "0"'],
    [bench, ["--code-loading", "cold"], '--code-loading must be lambda, artifact or none, not "cold"'],
    [bench, ["--stack", "s", "--network", "none"], "--network and --code-loading set up the local lab; a --stack runs on Lambda itself"],
    [
      bench,
      ["--stack", "s", "--parameter-overrides", "Runtime=node24"],
      "--parameter-overrides sets up the local lab; a --stack runs with the values it was deployed with",
    ],
    [bench, ["--ablate", "--profiles", "Warp"], "--ablate chooses its own profiles; leave out --profiles"],
    [bench, ["--stack", "s", "--exec-wrapper"], "--profiles, --ablate and --exec-wrapper build locally; a --stack runs each function as deployed"],
    [bench, ["--functions", "A", "--variants", "B"], "--variants is --functions' old name: give one of them"],
    [phases, ["--rounds", "0"], '--rounds must be a whole number from 1 to 1000, not "0"'],
    [aws, ["--port", "http"], '--port must be a whole number from 1 to 65535, not "http"'],
    [doctor, ["--static", "--rounds", "3"], "--static measures nothing: leave out --rounds"],
    [doctor, ["--dry-run"], "--dry-run goes with --fix: it prints the diff --fix would write"],
    [doctor, ["--fail-on", "info"], '--fail-on must be warn or error, not "info"'],
    [doctor, ["--fix", "--static"], "--fix writes the fixes the doctor built and measured: leave out --static"],
    [load, ["--duration", "2"], '--duration must be a whole number from 3 to 600, not "2"'],
    [keepalive, ["--invokes", "0"], '--invokes must be a whole number from 1, not "0"'],
    [pin, [], "--stack is required: the deployed stack (sam deploy of template.yaml) whose Warp function to read"],
    [invoke, [], "which function? Give its logical id"],
    [invoke, ["A", "B"], "<LogicalId> takes one at a time, not A, B"],
    [build, ["Fn"], "give <LogicalId> <ARTIFACTS_DIR>"],
  ] as [Command, string[], string][])("%#: %j says %s", (command, args, message) => {
    expect(() => parseCommand(command.spec, args)).toThrow(new UsageError(message));
  });
});

describe("--template's default, as sam finds a template", () => {
  const spec = { name: "x", summary: "x", options: TEMPLATE_OPTION };
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-cli-template-"));
  const here = process.cwd();
  afterAll(() => {
    process.chdir(here);
    rmSync(scratch, { recursive: true, force: true });
  });

  it.each([
    [[], "template.yaml"],
    [["template.json"], "template.json"],
    [["template.json", "template.yml"], "template.yml"],
    [["template.yml", "template.yaml"], "template.yaml"],
  ])("in a folder holding %j: %s", (files, expected) => {
    const dir = mkdtempSync(join(scratch, "app-"));
    for (const file of files) writeFileSync(join(dir, file), "Resources: {}\n");
    process.chdir(dir);
    expect(parseCommand(spec, []).values.template).toBe(expected);
    expect(parseCommand(spec, ["--template", "other.yaml"]).values.template).toBe("other.yaml");
  });
});
