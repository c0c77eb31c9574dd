// `warpstart invoke <LogicalId>`: what
// `sam local invoke` does, without Docker. Builds what is stale, starts the local AWS with the
// template's resources, runs one cold invoke in the lab, prints the function's log (INIT_START,
// START, END, REPORT with Init Duration) on stderr and its result on stdout. Exits 0, or 1 with
// Lambda's error shape on stdout when the function fails.
import { existsSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { buildFunction, functionBuild, staleReason } from "../builder/build.mts";
import { builtByPipeline, pipelineSource } from "../builder/handler.mts";
import { PEER_NAMES, PROFILE_NAMES, profileNamed, withToolEnvironment } from "../builder/profiles.mts";
import { errorMessage } from "../core/errors.mts";
import { assertFunctionsOf, defineCommand, type Parsed, TEMPLATE_OPTION, UsageError } from "../core/options.mts";
import { buildDirOf, builtTemplateOf } from "../core/paths.mts";
import { readTemplate, type TemplateFunction } from "../core/template.mts";
import { readEnvVars } from "../emulation/env-vars.mts";
import { eventFile, eventNote, functionEvent } from "../emulation/events.mts";
import { ownLocalAws } from "../emulation/local-aws/build-services.mts";
import { FIDELITY_OPTIONS, fidelityFrom } from "../lab/fidelity.mts";
import { customResourceOutcome, localAwsNotes, withLab } from "../lab/lab.mts";
import { ENV_VARS_OPTION, PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";
import { samBuild } from "../lab/sam.mts";

const OPTIONS = {
  event: {
    value: "FILE",
    help: "the event, a JSON file (default: the app's events/<LogicalId>.json if it keeps one, else one shaped for\nwhat invokes it, by sam local generate-event where it has one; {} where none can be made, said in a line)",
  },
  profile: {
    value: "P",
    help: `build the function with this profile instead of its own (Metadata.BuildProperties.Profile): ${PROFILE_NAMES.join(", ")},\nor what users build with instead: ${PEER_NAMES.join(", ")}`,
  },
  ...TEMPLATE_OPTION,
  ...PARAMETER_OPTIONS,
  ...ENV_VARS_OPTION,
  ...FIDELITY_OPTIONS,
} as const;

const say = (line: string) => console.error(`== ${line}`);

/**
 * The function as the lab serves it, built if it is stale: by `sam build <LogicalId>` when
 * nothing is built yet, the template changed since or that build did not build it (as `sam local
 * invoke` needs it, whatever else the template holds). A function SAM's own builder builds is served as that build left it,
 * as `sam local invoke` serves it; one the pipeline builds is built again when a source changed,
 * with its own profile into .aws-sam/build (what `sam build` writes there). With another profile,
 * its source (as its builder reads it) is built into .aws-sam/profiles/.
 */
async function servedFunction(
  templateFile: string,
  logicalId: string,
  profile: string | undefined,
  overrides: Record<string, string>,
  along: string[] = [],
): Promise<TemplateFunction> {
  const built = builtTemplateOf(templateFile);
  const builtFunctions = () => new Map(existsSync(built) ? readTemplate(built, overrides).functions.map((fn) => [fn.logicalId, fn]) : []);
  let builtByName = builtFunctions();
  // A sam build of other functions leaves this one's CodeUri as written, its source, or none (the build folder itself);
  // a Globals CodeUri stays as written, so a folder of that name in the build folder that does not exist.
  const builtBySam = (fn: TemplateFunction | undefined) => {
    const where = fn && relative(buildDirOf(templateFile), fn.codeDir);
    return Boolean(where) && !where!.startsWith("..") && existsSync(fn!.codeDir);
  };
  const why = !existsSync(built)
    ? "nothing built yet"
    : statSync(templateFile).mtimeMs > statSync(built).mtimeMs
      ? `${relative(process.cwd(), templateFile)} changed`
      : !builtBySam(builtByName.get(logicalId))
        ? "it has not been built"
        : along.some((id) => !builtBySam(builtByName.get(id)))
          ? `${along.join(", ")} not built`
          : null;
  if (why) {
    // SAM builds one function, or the whole app: a nested application's function alone lacks what its parent passes it (a layer's ARN).
    const whole = logicalId.includes("/") ? `${logicalId} is nested in it` : along.length ? `${along.join(", ")} too` : null;
    say(whole ? `sam build, the whole app: ${whole} (${why})` : `sam build ${logicalId} (${why})`);
    await samBuild({ template: templateFile, resources: whole ? [] : [logicalId], quiet: true, parameterOverrides: overrides });
    builtByName = builtFunctions();
  }
  const asBuilt = builtByName.get(logicalId);
  if (!asBuilt) throw new Error(`${relative(process.cwd(), built)} has no ${logicalId}: sam build it (sam build ${logicalId})`);
  const template = readTemplate(templateFile, overrides);
  const own = template.functions.find((candidate) => candidate.logicalId === logicalId)!;
  // One cold invoke: no provisioned environment, whatever its own ProvisionedConcurrencyConfig says.
  if (!builtByPipeline(own) && profile === undefined) return { ...asBuilt, provisionedConcurrency: 0 };
  const source = builtByPipeline(own) ? own : pipelineSource(own, false);
  if ("why" in source) throw new UsageError(`--profile ${profile}: ${logicalId} cannot be built by the pipeline: ${source.why}`);
  const fnBuild = functionBuild(
    { ...template, functions: [{ ...own, ...source, buildProperties: builtByPipeline(own) ? own.buildProperties : {} }] },
    logicalId,
    profile,
  );
  const ownProfile = builtByPipeline(own) && fnBuild.profileName === functionBuild(template, logicalId).profileName;
  const outdir = ownProfile ? join(buildDirOf(templateFile), logicalId) : join(buildDirOf(templateFile), "..", "profiles", logicalId, fnBuild.profileName);
  const stale = staleReason(templateFile, fnBuild, outdir);
  if (stale) {
    say(`building ${logicalId} (${fnBuild.profileName}): ${stale}`);
    await buildFunction(fnBuild, outdir, { initServices: ownLocalAws });
  }
  const served = { ...asBuilt, logicalId: ownProfile ? logicalId : `${logicalId}-${fnBuild.profileName}`, codeDir: outdir, provisionedConcurrency: 0 };
  return ownProfile ? served : withToolEnvironment(served, fnBuild.profile);
}

/** A request CloudFormation sends a custom resource's function: its response goes to its ResponseURL, not to the invoke's result. */
const isCustomResourceRequest = (event: unknown) =>
  typeof (event as { ResponseURL?: unknown } | null)?.ResponseURL === "string" && "RequestType" in (event as object);

async function main({ values, positionals }: Parsed<typeof OPTIONS>): Promise<number> {
  const [logicalId] = positionals as [string];
  const templateFile = resolve(values.template);
  // One cold invoke: no provisioned environments, whatever samconfig.toml deploys with.
  const parameterOverrides = { ...parameterOverridesFrom(values, templateFile), ProvisionedConcurrency: "0" };
  // Read with the lab's values, so that the event names what the lab creates (a bucket named by a parameter).
  const source = readTemplate(templateFile, parameterOverrides);
  assertFunctionsOf(source, [logicalId]);
  const fn = source.functions.find((candidate) => candidate.logicalId === logicalId)!;
  // Code written in the template is not built (SAM's own build of it alone fails with a traceback): the lab writes it out as Lambda deploys it.
  const inline = fn.inlineCode !== null;
  if (!inline && fn.whyNotOnDisk) throw new Error(`the lab does not serve ${logicalId}: ${fn.whyNotOnDisk}`);
  if (inline && values.profile !== undefined)
    throw new UsageError(`--profile ${values.profile}: ${logicalId}'s code is inline in the template, which no profile builds`);
  const event = values.event === undefined ? functionEvent(fn) : eventFile(values.event, "--event");
  const envVars = readEnvVars(templateFile, values["env-vars"]);
  const note = values.event === undefined && eventNote(fn);
  if (note) say(`${logicalId}: ${note}`);
  const fidelity = fidelityFrom(values);
  if (values.profile !== undefined) {
    try {
      profileNamed(values.profile);
    } catch (error) {
      throw new UsageError(`--profile: ${errorMessage(error)}`, { cause: error });
    }
  }

  // The providers of its custom resources, whose Create requests the lab sends as it starts, as CloudFormation does at a deploy.
  const providers = [...new Set(source.customResources.map(({ provider }) => provider))].filter((provider) => provider !== logicalId);
  // Code written in the template is served as it is; the first build builds the rest (sam build of one function wipes the others' artifacts).
  const ofSource = (id: string) => source.functions.find((candidate) => candidate.logicalId === id)!;
  const servedAs = new Map<string, TemplateFunction>();
  const toBuild = [logicalId, ...providers].filter((id) => {
    if (ofSource(id).inlineCode !== null) servedAs.set(id, { ...ofSource(id), provisionedConcurrency: 0 });
    return !servedAs.has(id);
  });
  for (const [i, id] of toBuild.entries())
    servedAs.set(
      id,
      await servedFunction(templateFile, id, id === logicalId ? values.profile : undefined, parameterOverrides, i === 0 ? toBuild.slice(1) : []),
    );
  const served = servedAs.get(logicalId)!;
  say("starting the local AWS with the template's resources, and the lab");
  const labOptions = {
    template: existsSync(builtTemplateOf(templateFile)) ? builtTemplateOf(templateFile) : templateFile,
    only: [],
    extraFunctions: [...servedAs.values()],
    // A provider invoked gets its request from this invoke alone.
    createCustomResources: !source.customResources.some(({ provider }) => provider === logicalId),
    parameterOverrides,
    fidelity,
    envVars,
  };
  return withLab(labOptions, async (lab) => {
    for (const line of localAwsNotes(lab)) console.error(line);
    const result = await lab.lambda.invoke(served.logicalId, Buffer.from(JSON.stringify(event)));
    for (const line of result.log) console.error(line);
    if (isCustomResourceRequest(event)) say(customResourceOutcome(logicalId, event as { RequestId?: unknown }, await lab.aws.calls()));
    console.log(result.payload.toString("utf8"));
    return result.functionError ? 1 : 0;
  });
}

export const command = defineCommand(
  {
    name: "invoke",
    summary: "One cold invoke of a function in the lab, as sam local invoke does, without Docker: its log on stderr, its result on stdout.",
    options: OPTIONS,
    positionals: { usage: "<LogicalId>", help: "the function to invoke", min: 1, max: 1, missing: "which function? Give its logical id" },
  },
  main,
);
