// What an app puts into the local AWS before any INIT: the files of its seed folder, local-aws/
// beside template.yaml (docs/lab.md#the-seed-folder), checked here and loaded by seed.py once the
// template's resources exist. A bucket or table is named by its logical id, which holds whatever
// name a parameter gives it. A file the lab cannot use is one line naming it and what to do; the
// others are loaded.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { appDirOf, seedDirOf } from "../../core/paths.mts";
import type { TemplateResource } from "../../core/template.mts";

/** An object to put: the file's bytes at `key` of the bucket created for `logicalId`. */
interface SeedObject {
  source: string;
  logicalId: string;
  key: string;
  path: string;
}

/** A file of items (DynamoDB's plain JSON) to put into the table created for `logicalId`. */
interface SeedItems {
  source: string;
  logicalId: string;
  path: string;
}

/** Named values: an SSM parameter's or a secret's. */
interface SeedValue {
  source: string;
  name: string;
  value: string;
}

export interface Seeds {
  objects: SeedObject[];
  tables: SeedItems[];
  parameters: SeedValue[];
  secrets: SeedValue[];
}

const BUCKETS = ["AWS::S3::Bucket"];
const TABLES = ["AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable"];
/** What the lab loads from the folder; exports.json is the template reader's (core/template.mts), env-vars.json the functions' variables' (emulation/env-vars.mts). */
const KNOWN = ["s3", "dynamodb", "ssm.json", "secretsmanager.json", "exports.json", "env-vars.json"];

/** Every file under `dir`, depth first, in name order. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** The JSON a file holds, or the line saying it is not JSON. */
function jsonOf(file: string, shown: string, expected: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(readFileSync(file, "utf8")) };
  } catch (error) {
    return { problem: `${shown} is not JSON (${(error as Error).message}): write ${expected}` };
  }
}

/** An object of name → value: a string, or (`objects`) any JSON, kept as its text. */
function namedValues(file: string, shown: string, what: string, objects: boolean): { values: SeedValue[]; problem?: string } {
  const expected = `an object of ${what} name → value${objects ? " (a string, or JSON kept as its text)" : " (a string)"}, e.g. {"/app/flag": "on"}`;
  const read = jsonOf(file, shown, expected);
  if ("problem" in read) return { values: [], problem: read.problem };
  const { value } = read;
  const wrong = (entry: unknown) => (objects ? entry === null || entry === undefined : typeof entry !== "string");
  if (!value || typeof value !== "object" || Array.isArray(value) || Object.values(value).some(wrong))
    return { values: [], problem: `${shown} is not ${expected}` };
  return {
    values: Object.entries(value).map(([name, entry]) => ({ source: shown, name, value: typeof entry === "string" ? entry : JSON.stringify(entry) })),
  };
}

/** The logical id a seed names, when the template declares a resource of one of `types` by it; else the line saying what it declares. */
function declared(resources: TemplateResource[], types: string[], logicalId: string, shown: string, what: string, how: string): string | null {
  if (resources.some((resource) => resource.logicalId === logicalId && types.includes(resource.type))) return null;
  const candidates = resources.filter((resource) => types.includes(resource.type)).map((resource) => resource.logicalId);
  return `${shown}: the template declares no ${what} ${logicalId} (${candidates.length ? `its ${what}s: ${candidates.join(", ")}` : `it has no ${what}`}): ${how}`;
}

/** The app's seed folder, checked against the template's resources: what to load, and a line for each file it cannot use. */
export function readSeeds(templateFile: string, resources: TemplateResource[]): { seeds: Seeds; problems: string[] } {
  const seeds: Seeds = { objects: [], tables: [], parameters: [], secrets: [] };
  const problems: string[] = [];
  const dir = seedDirOf(templateFile);
  if (!existsSync(dir)) return { seeds, problems };
  const shown = (path: string) => relative(appDirOf(templateFile), path).split(sep).join("/");

  for (const name of readdirSync(dir).sort()) {
    if (!KNOWN.includes(name))
      problems.push(`${shown(join(dir, name))}: the lab loads only ${KNOWN.map((known) => `local-aws/${known}`).join(", ")}: it leaves this alone`);
  }
  const s3 = join(dir, "s3");
  if (existsSync(s3)) {
    for (const entry of readdirSync(s3).sort()) {
      const path = join(s3, entry);
      if (!statSync(path).isDirectory()) {
        problems.push(`${shown(path)}: an object goes in its bucket's folder, local-aws/s3/<the bucket's logical id>/<key>`);
        continue;
      }
      const problem = declared(resources, BUCKETS, entry, shown(path), "bucket", "name the folder after a bucket's logical id");
      if (problem) problems.push(problem);
      else
        for (const file of filesUnder(path))
          seeds.objects.push({ source: shown(file), logicalId: entry, key: relative(path, file).split(sep).join("/"), path: file });
    }
  }
  const dynamodb = join(dir, "dynamodb");
  if (existsSync(dynamodb)) {
    for (const file of filesUnder(dynamodb)) {
      const logicalId = relative(dynamodb, file).replace(/\.json$/, "");
      if (!file.endsWith(".json") || logicalId.includes(sep)) {
        problems.push(`${shown(file)}: a table's items go in local-aws/dynamodb/<the table's logical id>.json`);
        continue;
      }
      const problem = declared(resources, TABLES, logicalId, shown(file), "table", "name the file after a table's logical id");
      if (problem) {
        problems.push(problem);
        continue;
      }
      const expected = 'an array of items in plain JSON, e.g. [{"id": "1", "count": 2}]';
      const read = jsonOf(file, shown(file), expected);
      if ("problem" in read) problems.push(read.problem);
      else if (!Array.isArray(read.value) || read.value.some((item) => !item || typeof item !== "object" || Array.isArray(item)))
        problems.push(`${shown(file)} is not ${expected}`);
      else seeds.tables.push({ source: shown(file), logicalId, path: file });
    }
  }
  for (const [file, what, objects, into] of [
    ["ssm.json", "parameter", false, seeds.parameters],
    ["secretsmanager.json", "secret", true, seeds.secrets],
  ] as const) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    const { values, problem } = namedValues(path, shown(path), what, objects);
    if (problem) problems.push(problem);
    into.push(...values);
  }
  return { seeds, problems };
}
