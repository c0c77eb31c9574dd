// `npm run doctor -- [--template FILE] [--json FILE] [--markdown FILE] [--fail-on warn|error]
// [--no-build] [Function ...]`: builds a SAM app (sam build in its folder, with whatever builder
// each function declares), examines each Node.js function's build for the cold-start pitfalls of
// doctor/checks.mts, and reports them: a table per function on stdout, Markdown, JSON. With
// --fail-on, exits 1 when a finding of that severity or worse exists (for CI).
import { existsSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { errorMessage, parseCommandLine, runCommand, UsageError } from "../core/cli.mts";
import { appDirOf, builtTemplateOf, PROJECT_TEMPLATE } from "../core/paths.mts";
import { samconfigParameterOverrides } from "../core/samconfig.mts";
import { readTemplate, type SamTemplate } from "../core/template.mts";
import { samBuild } from "../lab/sam.mts";
import { ArtifactError, readBuiltFunction } from "./artifact.mts";
import { examine, runtimeLabel, whyNotExamined } from "./checks.mts";
import { type DoctorReport, failsAt, type Severity } from "./findings.mts";
import { renderJson, renderMarkdown, renderText } from "./report.mts";

const USAGE = `usage: npm run doctor -- [--template FILE] [--json FILE] [--markdown FILE] [--fail-on warn|error] [--no-build] [Function ...]
  --template FILE  the SAM template (default: template.yaml); sam build builds its app first
  --json FILE      also write the report as JSON
  --markdown FILE  also write the report as Markdown
  --fail-on S      exit 1 when a finding of severity S (warn or error) or worse exists
  --no-build       examine the app's last build (.aws-sam/build) instead of running sam build
  Function ...     the functions to examine (default: every Node.js function of the template)`;

/** Progress, on stderr: stdout is the report. */
const say = (line: string) => console.error(`== ${line}`);

/** A template the doctor cannot read, in one line (YAML's errors add a code frame). */
function readOrExplain(file: string, overrides: Record<string, string>): SamTemplate {
  try {
    return readTemplate(file, overrides, { skipForeignLayers: true });
  } catch (error) {
    throw new Error(errorMessage(error).split("\n")[0]);
  }
}

function failOn(raw: string | undefined): Severity | undefined {
  if (raw === undefined) return undefined;
  if (raw !== "warn" && raw !== "error") throw new UsageError(`--fail-on must be warn or error, not "${raw}"`);
  return raw;
}

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine({
    options: {
      template: { type: "string", default: PROJECT_TEMPLATE },
      json: { type: "string" },
      markdown: { type: "string" },
      "fail-on": { type: "string" },
      "no-build": { type: "boolean" },
      help: { type: "boolean" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const threshold = failOn(values["fail-on"]);
  const templateFile = resolve(values.template);
  const shown = relative(process.cwd(), templateFile) || templateFile;
  const overrides = samconfigParameterOverrides(join(appDirOf(templateFile), "samconfig.toml"), "build");
  const source = readOrExplain(templateFile, overrides);

  const names = source.functions.map((fn) => fn.logicalId);
  const unknown = positionals.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `${unknown.join(", ")} ${unknown.length === 1 ? "is not a function" : "are not functions"} of ${shown}; its functions: ${names.join(", ") || "none"}`,
    );
  }
  const chosen = positionals.length > 0 ? source.functions.filter((fn) => positionals.includes(fn.logicalId)) : source.functions;
  const skipped = chosen.flatMap((fn) => {
    const why = whyNotExamined(fn);
    return why ? [{ name: fn.logicalId, runtime: runtimeLabel(fn), why }] : [];
  });
  const examined = chosen.filter((fn) => !skipped.some((skip) => skip.name === fn.logicalId));
  if (examined.length === 0) {
    const reasons = skipped.map((fn) => `${fn.name}: ${fn.why}`).join("; ");
    throw new Error(`${shown} has no Node.js function to examine${reasons ? ` (${reasons})` : ""}`);
  }

  if (values["no-build"]) {
    if (!existsSync(builtTemplateOf(templateFile))) throw new Error(`--no-build: ${shown} has not been built yet (no .aws-sam/build/template.yaml)`);
  } else {
    // sam build takes one resource or all of them.
    const only = positionals.length === 1 ? positionals : undefined;
    say(`sam build${only ? ` ${only[0]}` : ""} in ${relative(process.cwd(), appDirOf(templateFile)) || "."} (SAM's output is shown if it fails)`);
    try {
      await samBuild({ template: templateFile, resources: only, quiet: true });
    } catch (error) {
      throw new Error(`the build failed, so there is nothing to examine: ${errorMessage(error)}`);
    }
  }

  const built = readOrExplain(builtTemplateOf(templateFile), overrides);
  const report: DoctorReport = { template: templateFile, functions: [], skipped };
  for (const [index, fn] of examined.entries()) {
    say(`examining ${fn.logicalId} (${index + 1}/${examined.length})`);
    const builtFn = built.functions.find((candidate) => candidate.logicalId === fn.logicalId);
    try {
      if (!builtFn) throw new ArtifactError("it is not in the built template: was it built?");
      report.functions.push(examine(await readBuiltFunction(builtFn)));
    } catch (error) {
      if (!(error instanceof ArtifactError)) throw error;
      report.skipped.push({ name: fn.logicalId, runtime: runtimeLabel(fn), why: error.message });
    }
  }

  console.log(renderText(report));
  if (values.json !== undefined) writeFileSync(resolve(values.json), renderJson(report));
  if (values.markdown !== undefined) writeFileSync(resolve(values.markdown), renderMarkdown(report));
  return threshold && failsAt(report, threshold) ? 1 : 0;
}

runCommand(USAGE, main);
