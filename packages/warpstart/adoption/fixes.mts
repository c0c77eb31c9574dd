// --fix: the fixes the doctor built and measured, written into the app's own template (only the
// properties they change, the rest of its text as it was: write.mts), with the diff printed;
// --dry-run prints the diff only. A profile measured faster than the function as it is (its 95%
// interval above zero) is written as adopt writes it: BuildMethod makefile, that
// Profile, and the Makefile that includes the package's rule. Code is never edited: a fix that is
// a change to the code stays advice, and so does one whose fixed copy did not build or answer.
import { existsSync } from "node:fs";
import { appDirOf } from "../core/paths.mts";
import { type TemplateFunction, type TemplateResourceEntry, templateAsWritten } from "../core/template.mts";
import { type Examined, fixFor } from "../doctor/checks.mts";
import { type Finding, fastestProfile } from "../doctor/findings.mts";
import { includesRule, installedRule, makefileRewrite, planOf } from "./plan.mts";
import type { TemplateChange } from "./template-edit.mts";
import { diffOf, type Rewrite, templateRewrite } from "./write.mts";

/** A fix whose measurement shows it costs (its 95% CI below zero) is not one to write. */
const costs = (finding: Finding) => (finding.measured?.deltaCi95?.[1] ?? 0) < 0;

/** A profile written into `after` (and the Makefile to write), or why not: as adopt writes it, or the Profile alone of a function warpstart builds already. */
function withProfile(
  source: TemplateFunction,
  after: TemplateResourceEntry,
  profile: string,
  templateFile: string,
): { makefile: Rewrite | null } | { why: string } {
  const appDir = appDirOf(templateFile);
  const makefile = `${source.codeDir}/Makefile`;
  if (source.buildMethod === "makefile" && existsSync(makefile) && includesRule(makefile)) {
    const metadata = (after.Metadata ?? {}) as { BuildProperties?: Record<string, unknown> };
    after.Metadata = { ...metadata, BuildProperties: { ...metadata.BuildProperties, Profile: profile } };
    return { makefile: null };
  }
  let rule: string;
  try {
    rule = installedRule(appDir);
  } catch {
    return {
      why: `warpstart is not installed in the app: npm install --save-dev warpstart, then npx warpstart adopt --profile ${profile} ${source.logicalId}`,
    };
  }
  const plan = planOf(source, after, profile, appDir);
  if ("why" in plan) return { why: plan.why };
  Object.assign(after, plan.adoption.change.after);
  return { makefile: makefileRewrite(plan, templateFile, rule) };
}

/** What --fix would write: the template's rewrite and the Makefiles a profile needs, the fixes in it ("Fn: commonjs") and those left out. */
export function fixedTemplate(templateFile: string, text: string, examined: (Examined & { source: TemplateFunction })[]): FixedTemplate {
  // The text the doctor read, not the file now: a file changed since is refused when --fix writes.
  const resources = templateAsWritten(templateFile, text).Resources;
  const applied: string[] = [];
  const makefiles: Rewrite[] = [];
  const leftOut = examined.flatMap(({ report }) =>
    report.findings.filter(costs).map((finding) => `${report.name}: ${finding.id} (${finding.measured!.deltaMs.toFixed(1)} ms: it costs)`),
  );
  const changes: TemplateChange[] = examined.flatMap(({ built, report, source }) => {
    const measured = report.findings.filter((finding) => finding.measured && !costs(finding));
    const before = resources[report.name];
    const fastest = fastestProfile(report);
    if ((measured.length === 0 && !fastest) || !before) return [];
    const after = structuredClone(before);
    const fixes: string[] = [];
    for (const finding of measured) {
      const fix = fixFor(finding.id, built);
      if ("why" in fix) continue;
      fix.rewrite(after);
      fixes.push(finding.id);
    }
    let profile: string | null = null;
    if (fastest) {
      const written = withProfile(source, after, fastest.profile, templateFile);
      const label = `Profile ${fastest.profile} (${fastest.deltaMs.toFixed(1)} ms faster)`;
      if ("why" in written) leftOut.push(`${report.name}: ${label}: ${written.why}`);
      else if (written.makefile === null && source.buildMethod === "makefile") profile = label;
      else {
        // The pipeline's build replaces the one SAM's builder made, and the build fixes written for it.
        profile = fixes.length > 0 ? `${label}, in place of ${fixes.join(", ")}` : label;
        fixes.length = 0;
        if (written.makefile) makefiles.push(written.makefile);
      }
    }
    applied.push(...fixes.map((id) => `${report.name}: ${id}`), ...(profile ? [`${report.name}: ${profile}`] : []));
    return [{ logicalId: report.name, before, after }];
  });
  return { template: templateRewrite(templateFile, text, changes), makefiles, applied, leftOut };
}

interface FixedTemplate {
  template: Rewrite;
  /** The Makefiles a profile's function is built by, to write beside its code. */
  makefiles: Rewrite[];
  applied: string[];
  leftOut: string[];
}

/** The --fix section of the report: what is applied, and the diff. */
export function fixSection(label: string, fixed: FixedTemplate, dryRun: boolean): string {
  const notApplied = fixed.leftOut.length > 0 ? `--fix leaves out: ${fixed.leftOut.join(", ")}\n` : "";
  if (fixed.applied.length === 0) return `${notApplied}--fix: nothing to apply (a fix is applied once the doctor has built and measured it)\n`;
  const verb = dryRun ? "would apply" : "applies";
  return `${notApplied}--fix ${verb} ${fixed.applied.length} fix${fixed.applied.length === 1 ? "" : "es"} to ${label}: ${fixed.applied.join(", ")}\n${diffOf([fixed.template, ...fixed.makefiles])}`;
}
