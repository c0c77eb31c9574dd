// `warpstart adopt`: an app's Node.js functions moved onto the package's pipeline (adoption/plan.mts
// says what that takes, per function). Only the properties that change are rewritten
// (adoption/write.mts); the diff is printed; --dry-run writes nothing. What is not adopted
// stays as it was, with one line saying why; what the owner must still do, one line each.
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { builtBySamNpm, installedRule, KEEP_RUNTIME, MOVED_TO, makefileRewrite, PIPELINE_RUNTIMES, type Plan, planOf } from "../adoption/plan.mts";
import { diffOf, type Rewrite, templateRewrite, writeRewrites } from "../adoption/write.mts";
import { PROFILE_NAMES } from "../builder/profiles.mts";
import { assertFunctionsOf, defineCommand, type Parsed, TEMPLATE_OPTION, UsageError } from "../core/options.mts";
import { appDirOf } from "../core/paths.mts";
import { samconfigSetting } from "../core/samconfig.mts";
import { ownLogicalId, readTemplate, type Template, type TemplateFunction, templateAsWritten } from "../core/template.mts";
import { type DoctorReport, fastestProfile } from "../doctor/findings.mts";

/**
 * The profile a function gets when --profile names none: Warp, the fastest on every function the
 * bench and the doctor have measured it on (docs/corpus, docs/public-apps.md) but where its build
 * says it cannot make its code cache, and then the build names Optimized.
 */
const ADOPTED_PROFILE = "Warp";

const OPTIONS = {
  ...TEMPLATE_OPTION,
  profile: {
    value: "NAME",
    default: ADOPTED_PROFILE,
    oneOf: PROFILE_NAMES,
    help: "the profile an adopted function is built with (where --measured names none)",
  },
  runtime: {
    value: "R",
    default: KEEP_RUNTIME,
    oneOf: [KEEP_RUNTIME, ...PIPELINE_RUNTIMES],
    help: `the runtime an adopted function runs on: ${KEEP_RUNTIME} (its own, where the pipeline builds for it; ${MOVED_TO} for an older one)\nor one of ${PIPELINE_RUNTIMES.join(", ")}; a move is shown in the diff, with what it could break`,
  },
  measured: {
    value: "FILE",
    help: "a report of `warpstart doctor --json FILE`: each function gets the profile the doctor measured fastest (95% interval above zero), the others --profile",
  },
  "dry-run": { help: "print the diff and what would be written, and write nothing" },
} as const;

/** Refuses what is not a SAM app, saying what it is. */
function samTemplateOf(templateFile: string): { text: string; template: Template } {
  const dir = dirname(templateFile);
  if (!existsSync(templateFile)) {
    if (existsSync(join(dir, "cdk.json")))
      throw new UsageError(
        `${dir} is a CDK app (cdk.json), not a SAM app: adopt moves the functions of a SAM template (template.yaml); CDK's NodejsFunction builds with esbuild itself`,
      );
    const serverless = ["serverless.yml", "serverless.yaml", "serverless.ts"].find((name) => existsSync(join(dir, name)));
    if (serverless)
      throw new UsageError(
        `${dir} is a Serverless Framework project (${serverless}), not a SAM app: adopt moves the functions of a SAM template (template.yaml)`,
      );
    throw new UsageError(`${templateFile} does not exist: run adopt in a SAM app's folder, or give --template`);
  }
  const text = readFileSync(templateFile, "utf8");
  const template = templateAsWritten(templateFile, text);
  if (template.Resources && Object.values(template.Resources).some((resource) => resource?.Type === "AWS::CDK::Metadata"))
    throw new UsageError(`${templateFile} is CloudFormation that CDK synthesized, not a SAM template: adopt moves the functions of a SAM app's own template`);
  const transform = [template.Transform].flat();
  if (!transform.some((name) => typeof name === "string" && name.startsWith("AWS::Serverless")))
    throw new UsageError(`${templateFile} is not a SAM template (no Transform: AWS::Serverless-2016-10-31): adopt moves the functions of a SAM app`);
  return { text, template };
}

/**
 * One line when `sam build` would copy each CodeUri folder before its makefile build, or null. Not
 * where a function left on SAM's npm builder shares its package with warpstart: built in source,
 * that builder installs the package's production dependencies in place, which prunes warpstart.
 */
function buildInSourceLine(appDir: string, leftToSamNpm: TemplateFunction[]): string | null {
  if (samconfigSetting(join(appDir, "samconfig.toml"), "build", "build_in_source") === true) return null;
  // SAM's npm builder installs the package.json of the CodeUri folder itself (one without copies the folder, nothing installed).
  const pruning = leftToSamNpm.filter((fn) => {
    const file = join(fn.codeDir, "package.json");
    const manifest = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { devDependencies?: Record<string, string> }) : {};
    return Object.hasOwn(manifest.devDependencies ?? {}, "warpstart");
  });
  if (pruning.length > 0)
    return `samconfig.toml: build_in_source left unset: in source, SAM's npm builder, which still builds ${pruning.map((fn) => fn.logicalId).join(", ")}, installs its package's production dependencies in place, removing warpstart (a devDependency) from node_modules; build the adopted functions in source by name (sam build <Function> --build-in-source)`;
  return "samconfig.toml: set build_in_source = true under [default.build.parameters] (or sam build --build-in-source): SAM's makefile builder otherwise copies each CodeUri folder, node_modules and all, before every build; the pipeline reads the source where it is";
}

/** One line on the app's lockfile when the pipeline would read its node_modules otherwise than npm installs them, or null. */
function lockfileLine(appDir: string): string | null {
  if (existsSync(join(appDir, "package-lock.json"))) return null;
  if (existsSync(join(appDir, "yarn.lock")))
    return "yarn.lock: the pipeline bundles node_modules as Yarn installed them (a Plug'n'Play install has none: set nodeLinker: node-modules); warpstart's own SDK trees follow npm's package-lock.json";
  if (existsSync(join(appDir, "pnpm-lock.yaml")))
    return "pnpm-lock.yaml: the pipeline bundles node_modules as pnpm links them; warpstart's own SDK trees follow npm's package-lock.json";
  return "no package-lock.json: the functions are built from node_modules as they are installed; npm install writes one that pins them";
}

/**
 * The app's package.json with the name and version SAM's npm builder needs (it packs the package
 * with npm pack), where it has none: npm install --save-dev warpstart writes one without them in an
 * app that had none. Null where it has both, or there is no such file.
 */
function namedManifest(appDir: string): (Rewrite & { line: string }) | null {
  const file = join(appDir, "package.json");
  if (!existsSync(file)) return null;
  const was = readFileSync(file, "utf8");
  const manifest = JSON.parse(was) as { name?: string; version?: string };
  if (manifest.name && manifest.version) return null;
  const named = {
    name: basename(appDir)
      .toLowerCase()
      .replace(/[^a-z0-9-._~]+/g, "-"),
    version: "1.0.0",
    private: true,
    ...manifest,
  };
  return {
    file,
    was,
    is: `${JSON.stringify(named, null, 2)}\n`,
    line: `package.json: given a name and version (${named.name}, ${named.version}): SAM's npm builder packs the package, which npm refuses without them (npm install wrote it without them in an app that had none)`,
  };
}

/** The doctor's report --measured names, or a message saying what is wrong with the file. */
function doctorReport(file: string): DoctorReport {
  if (!existsSync(file)) throw new UsageError(`${file} does not exist: write it with npx warpstart doctor --json ${file}, then adopt --measured ${file}`);
  let report: Partial<DoctorReport>;
  try {
    report = JSON.parse(readFileSync(file, "utf8")) as Partial<DoctorReport>;
  } catch (error) {
    throw new UsageError(`${file} is not JSON (${(error as Error).message}): --measured takes the report of npx warpstart doctor --json FILE`, {
      cause: error,
    });
  }
  if (!Array.isArray(report.functions) || typeof report.template !== "string")
    throw new UsageError(`${file} is not a doctor's report: --measured takes the report of npx warpstart doctor --json FILE`);
  return report as DoctorReport;
}

/** The profile a function is adopted with, and why: the doctor's measurement, else --profile. */
function profileFor(logicalId: string, report: DoctorReport | null, fallback: string, file: string | undefined): { profile: string; why: string } {
  if (!report) return { profile: fallback, why: "" };
  const measured = report.functions.find((fn) => fn.name === logicalId);
  const fastest = measured && fastestProfile(measured);
  if (fastest) return { profile: fastest.profile, why: ` (${file}: ${fastest.deltaMs.toFixed(1)} ms faster than as it was)` };
  return { profile: fallback, why: measured ? ` (${file} measured no profile faster than it was)` : ` (${file} did not measure it)` };
}

/** A template file adopt edits: the app's, or a nested application's (the functions it declares are adopted in it). */
interface Edited {
  file: string;
  text: string;
  resources: Template["Resources"];
  adopted: Adopted[];
}

/** A function adopt takes: its plan's adoption. */
type Adopted = Extract<Plan, { adoption: unknown }>;

async function main({ values, positionals }: Parsed<typeof OPTIONS>): Promise<number> {
  const templateFile = resolve(values.template);
  const { text, template: asWritten } = samTemplateOf(templateFile);
  const appDir = appDirOf(templateFile);
  const template = readTemplate(templateFile);
  assertFunctionsOf(template, positionals);
  const chosen = template.functions.filter((fn) => positionals.length === 0 || positionals.includes(fn.logicalId));

  const lines: string[] = [];
  const lockfile = lockfileLine(appDir);
  if (lockfile) lines.push(lockfile);
  for (const key of Object.keys(asWritten.Resources).filter((id) => id.startsWith("Fn::ForEach")))
    lines.push(`${key}: the functions it makes are not adopted (adopt rewrites resources as written: give them BuildMethod: makefile by hand)`);

  const report = values.measured === undefined ? null : doctorReport(values.measured);
  const rule = installedRule(appDir);
  // Each function is edited in the template that declares it: a nested application's in its own.
  const edited = new Map<string, Edited>([[templateFile, { file: templateFile, text, resources: asWritten.Resources, adopted: [] }]]);
  const editedOf = (file: string): Edited => {
    if (!edited.has(file)) {
      const childText = readFileSync(file, "utf8");
      edited.set(file, { file, text: childText, resources: templateAsWritten(file, childText).Resources, adopted: [] });
    }
    return edited.get(file)!;
  };
  for (const fn of chosen) {
    const { profile, why } = profileFor(fn.logicalId, report, values.profile, values.measured);
    const target = editedOf(fn.templateFile);
    const plan = planOf(fn, target.resources[ownLogicalId(fn)]!, profile, appDir, values.runtime);
    if ("why" in plan) {
      lines.push(`${plan.logicalId}: not adopted: ${plan.why}`);
      continue;
    }
    target.adopted.push(plan);
    const where = fn.templateFile === templateFile ? "" : ` in ${relative(process.cwd(), fn.templateFile)}`;
    lines.push(`${plan.logicalId}: adopted as ${profile}${why}${where}${plan.adoption.notes.map((note) => `\n  ${note}`).join("")}`);
  }
  const adopted = [...edited.values()].flatMap((file) => file.adopted);
  const adoptedIds = new Set(adopted.map((plan) => plan.logicalId));
  const leftToSamNpm = template.functions.filter((fn) => !adoptedIds.has(fn.logicalId) && builtBySamNpm(fn, template.raw.Resources[fn.logicalId]));
  const inSource = buildInSourceLine(appDir, leftToSamNpm);
  if (inSource) lines.splice(lockfile ? 1 : 0, 0, inSource);
  console.log(lines.join("\n"));
  if (adopted.length === 0) {
    console.error(`error: nothing adopted in ${relative(process.cwd(), templateFile) || templateFile}`);
    return 1;
  }

  const rewrites = [...edited.values()]
    .filter((file) => file.adopted.length > 0)
    .map((file) =>
      templateRewrite(
        file.file,
        file.text,
        file.adopted.map(({ adoption }) => adoption.change),
      ),
    );
  // Beside the templates: a Makefile in each folder that has none, the app's package.json named.
  const makefiles = new Map<string, Rewrite>();
  for (const plan of adopted) {
    const makefile = makefileRewrite(plan, templateFile, rule);
    if (makefile) makefiles.set(makefile.file, makefile);
  }
  rewrites.push(...makefiles.values());
  const manifest = namedManifest(appDir);
  if (manifest) {
    rewrites.push(manifest);
    console.log(manifest.line);
  }
  console.log(diffOf(rewrites));
  if (values["dry-run"]) {
    console.log("--dry-run: nothing written");
    return 0;
  }
  writeRewrites(rewrites, "adopt");
  const ids = adopted.map((plan) => plan.logicalId);
  console.log(`adopted ${ids.join(", ")}: next, sam build, then npx warpstart invoke ${ids[0]} (and npx warpstart bench to measure them)`);
  return 0;
}

export const command = defineCommand(
  {
    name: "adopt",
    summary:
      "Moves a SAM app's Node.js functions onto warpstart's pipeline: BuildMethod makefile with a profile, a Makefile that includes the package's rule; prints the diff, --dry-run writes nothing.",
    options: OPTIONS,
    positionals: { usage: "[Function ...]", help: "the functions to adopt (default: every Node.js function of the template)" },
  },
  main,
);
