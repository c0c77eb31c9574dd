// `npm run invoke -- <LogicalId> [--event FILE] [--profile P] [--template FILE]`: what
// `sam local invoke` does, without Docker. Builds what is stale, starts the local AWS with the
// template's resources, runs one cold invoke in the lab, prints the function's log (INIT_START,
// START, END, REPORT with Init Duration) on stderr and its result on stdout. Exits 0, or 1 with
// Lambda's error shape on stdout when the function fails.
import { existsSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { buildFunction, functionBuild, staleReason } from "../builder/build.mts";
import { profileNamed } from "../builder/profiles.mts";
import { errorMessage, parseCommandLine, runCommand, UsageError } from "../core/cli.mts";
import { buildDirOf, builtTemplateOf, PROJECT_TEMPLATE } from "../core/paths.mts";
import { readTemplate, type TemplateFunction } from "../core/template.mts";
import { eventFile, functionEvent } from "../emulation/events.mts";
import { FIDELITY_FLAGS, FIDELITY_USAGE, fidelityFrom } from "./fidelity.mts";
import { localAwsNotes, withLab } from "./lab.mts";
import { PARAMETER_FLAGS, PARAMETER_USAGE, parameterOverridesFrom } from "./parameters.mts";
import { samBuild } from "./sam.mts";

const USAGE = `usage: npm run invoke -- <LogicalId> [--event FILE] [--profile Raw|Bundled|Optimized|Warp] [--template FILE] [--parameter-overrides "A=1 B=2"] [--network N] [--code-loading M]
  --event FILE     the event, a JSON file (default: the app's events/<LogicalId>.json if it keeps one, else one shaped for
                   its first event source by sam local generate-event, {} without one)
  --profile P      build the function with this profile instead of its own (Metadata.BuildProperties.Profile)
  --template FILE  the SAM template (default: template.yaml)
${PARAMETER_USAGE}
${FIDELITY_USAGE}`;

const say = (line: string) => console.error(`== ${line}`);

/**
 * The function as the lab serves it, built if it is stale: by `sam build <LogicalId>` when
 * nothing is built yet or the template changed since (as `sam local invoke` needs it, whatever
 * else the template holds); else, when a source changed, the function alone, with its own
 * profile into .aws-sam/build (what `sam build` writes there), or with another into .aws-sam/profiles/.
 */
async function servedFunction(
  templateFile: string,
  logicalId: string,
  profile: string | undefined,
  overrides: Record<string, string>,
): Promise<TemplateFunction> {
  const built = builtTemplateOf(templateFile);
  if (!existsSync(built) || statSync(templateFile).mtimeMs > statSync(built).mtimeMs) {
    say(`sam build ${logicalId} (${existsSync(built) ? `${relative(process.cwd(), templateFile)} changed` : "nothing built yet"})`);
    await samBuild({ template: templateFile, resources: [logicalId], quiet: true });
  }
  const target = functionBuild(readTemplate(templateFile), logicalId, profile);
  const ownProfile = target.profileName === functionBuild(target.template, logicalId).profileName;
  const outdir = ownProfile ? join(buildDirOf(templateFile), logicalId) : join(buildDirOf(templateFile), "..", "profiles", logicalId, target.profileName);
  const stale = staleReason(templateFile, target.fn, outdir);
  if (stale) {
    say(`building ${logicalId} (${target.profileName}): ${stale}`);
    await buildFunction(target, outdir);
  }
  const fn = readTemplate(built, overrides).functions.find((candidate) => candidate.logicalId === logicalId)!;
  // One cold invoke: no provisioned environment, whatever its own ProvisionedConcurrencyConfig says.
  return { ...fn, logicalId: ownProfile ? logicalId : `${logicalId}-${target.profileName}`, codeDir: outdir, provisionedConcurrency: 0 };
}

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine({
    options: {
      event: { type: "string" },
      profile: { type: "string" },
      template: { type: "string", default: PROJECT_TEMPLATE },
      help: { type: "boolean" },
      ...FIDELITY_FLAGS,
      ...PARAMETER_FLAGS,
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(positionals.length ? `one function at a time, not ${positionals.join(", ")}` : "which function? Give its logical id");
  const [logicalId] = positionals as [string];
  const templateFile = resolve(values.template);
  // One cold invoke: no provisioned environments, whatever samconfig.toml deploys with.
  const parameterOverrides = { ...parameterOverridesFrom(values, templateFile), ProvisionedConcurrency: "0" };
  // Read with the lab's values, so that the event names what the lab creates (a bucket named by a parameter).
  const source = readTemplate(templateFile, parameterOverrides);
  const fn = source.functions.find((candidate) => candidate.logicalId === logicalId);
  if (!fn)
    throw new UsageError(
      `${logicalId} is not a function of ${relative(process.cwd(), templateFile)}; its functions: ${source.functions.map((f) => f.logicalId).join(", ") || "none"}`,
    );
  const event = values.event === undefined ? functionEvent(fn) : eventFile(values.event, "--event");
  const fidelity = fidelityFrom(values);
  if (values.profile !== undefined) {
    try {
      profileNamed(values.profile);
    } catch (error) {
      throw new UsageError(`--profile: ${errorMessage(error)}`);
    }
  }

  const served = await servedFunction(templateFile, logicalId, values.profile, parameterOverrides);
  say("starting the local AWS with the template's resources, and the lab");
  return withLab({ template: builtTemplateOf(templateFile), only: [], extraFunctions: [served], parameterOverrides, fidelity }, async (lab) => {
    for (const line of localAwsNotes(lab.resources)) console.error(line);
    const result = await lab.lambda.invoke(served.logicalId, Buffer.from(JSON.stringify(event)));
    for (const line of result.log) console.error(line);
    console.log(result.payload.toString("utf8"));
    return result.functionError ? 1 : 0;
  });
}

runCommand(USAGE, main);
