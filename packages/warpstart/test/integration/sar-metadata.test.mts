// `sam publish` on template.yaml, offline: its AWS::ServerlessRepo::Application metadata goes
// through SAM CLI's own code (test/support/sar-publish.py: sam build's rewrite of its local paths,
// sam package's exporter with an S3 uploader that uploads nothing, sam publish's command with a
// stubbed Serverless Application Repository client, for a first publish and for a new version),
// then through what SAM CLI leaves to the service or to a release: a SemanticVersion that is semver
// and package.json's version, package.json's license, the license and readme as files of the
// project, the limits of the service's API reference. Copies with a broken block show each message.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { inc, valid } from "semver";
import { PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { DEMO_ROOT, DEMO_TEMPLATE } from "../support/demo.mts";

const PACKAGE_JSON = JSON.parse(readFileSync(join(DEMO_ROOT, "package.json"), "utf8")) as { version: string; license: string };

type Request = [operation: string, params: Record<string, unknown>];
interface Publish {
  error: string | null;
  requests: Request[];
}
interface Outcome {
  /** The section as sam publish's parser reads it; null without one. */
  metadata: Record<string, unknown> | null;
  /** Each of LicenseUrl and ReadmeUrl: the local file it names (null for an S3 URL) and the S3 URL sam package makes it. */
  package: { error: string | null; uploads: Record<string, { source: string | null; url: string }> };
  /** Empty when sam package failed: there is no packaged template to publish. */
  publish: { create?: Publish; update?: Publish };
}

/** The metadata's files, sam package uploads them, and what the application's page shows each as. */
const FILES = { LicenseUrl: "license", ReadmeUrl: "readme" } as const;
/** The limits SAM CLI does not check and the service does (its API reference, CreateApplication). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const LIMITS: Record<string, [pattern: RegExp, accepted: string]> = {
  Name: [/^[a-zA-Z0-9-]{1,140}$/, "1 to 140 letters, digits and hyphens"],
  Author: [/^(?=.{1,127}$)[a-z0-9](([a-z0-9]|-(?!-))*[a-z0-9])?$/, "1 to 127 lowercase letters, digits and single hyphens, not at either end"],
  Description: [/^[\s\S]{1,256}$/, "1 to 256 characters"],
};
const MAX_LABELS = 10;
const LABEL = /^[a-zA-Z0-9+\-_:/@]{1,127}$/;

/** What sam build, sam package and sam publish do with each template's metadata, in one Python process. */
async function publishOutcomes(templates: string[]): Promise<Record<string, Outcome>> {
  const { stdout } = await execOwned(join(VENV_BIN, "python"), [join(PACKAGE_ROOT, "test/support/sar-publish.py"), JSON.stringify(templates)]);
  return JSON.parse(stdout);
}

/** What would stop the template's publish or make it publish the wrong thing, one message each; none when it would publish as it should. */
function problemsOf(outcome: Outcome, template: string): string[] {
  const problems = new Set<string>();
  if (outcome.package.error) problems.add(`sam package: ${outcome.package.error}`);
  for (const run of Object.values(outcome.publish)) if (run.error) problems.add(`sam publish: ${run.error}`);
  const metadata = outcome.metadata;
  if (!metadata) return [...problems]; // sam publish's message says so

  const version = metadata.SemanticVersion;
  if (version === undefined || version === null) {
    problems.add(
      `SemanticVersion is missing: sam publish would publish no version of the application; set it to package.json's version, ${PACKAGE_JSON.version}`,
    );
  } else if (valid(String(version)) !== String(version)) {
    problems.add(`SemanticVersion ${version} is not a semantic version (https://semver.org): set it to package.json's version, ${PACKAGE_JSON.version}`);
  } else if (String(version) !== PACKAGE_JSON.version) {
    problems.add(`SemanticVersion ${version} is not package.json's version, ${PACKAGE_JSON.version}: a release sets both`);
  }
  if (metadata.SpdxLicenseId !== PACKAGE_JSON.license) {
    problems.add(`SpdxLicenseId ${metadata.SpdxLicenseId ?? "is missing"}: package.json's license is ${PACKAGE_JSON.license}`);
  }

  const appDir = realpathSync(dirname(template));
  for (const [property, shownAs] of Object.entries(FILES)) {
    if (outcome.package.error) break; // sam package's message is the one to act on
    const upload = outcome.package.uploads[property];
    if (!upload) {
      problems.add(`${property} is missing: the application's page would show no ${shownAs}`);
      continue;
    }
    if (upload.source === null) continue; // already in S3: sam package leaves it as it is
    const named = `${property} ${metadata[property]}`;
    const stats = statSync(upload.source);
    if (stats.isDirectory()) problems.add(`${named} is a folder: sam package would upload it zipped, not as a ${shownAs}; name a file`);
    else if (!upload.source.startsWith(appDir + sep)) problems.add(`${named} is outside the project (${upload.source})`);
    else if (stats.size > MAX_FILE_BYTES) problems.add(`${named} is larger than the 5 MB the service takes`);
  }

  for (const [field, [pattern, accepted]] of Object.entries(LIMITS)) {
    const value = metadata[field];
    if (typeof value === "string" && !pattern.test(value)) problems.add(`${field} "${value}" is not what the service accepts: ${accepted}`);
  }
  const labels = metadata.Labels;
  if (Array.isArray(labels)) {
    if (labels.length > MAX_LABELS) problems.add(`Labels: ${labels.length}, the service takes at most ${MAX_LABELS}`);
    for (const label of labels) {
      if (!LABEL.test(String(label))) problems.add(`Label "${label}" is not what the service accepts: 1 to 127 letters, digits and + - _ : / @`);
    }
  }
  return [...problems];
}

/** `text` matched literally in a RegExp. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const PUBLISH_DOC = "https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/serverless-sam-template-publishing-applications.html";
const NEXT_VERSION = inc(PACKAGE_JSON.version, "minor")!;

/** Copies of template.yaml beside LICENSE and README.md, each with one line of its metadata replaced (whatever the publisher set), and the problems each must show. */
const BROKEN = [
  {
    label: "without an Author",
    edit: [/^ {4}Author: .*\n/m, ""],
    problems: () => [`sam publish: Invalid application metadata: 'author properties not provided'\nPlease follow the instructions in ${PUBLISH_DOC}`],
  },
  {
    label: "with a LicenseUrl naming a file that does not exist",
    edit: [/^ {4}LicenseUrl: .*\n/m, "    LicenseUrl: LICENSE.txt\n"],
    // The path sam package names first is the one sam build rewrote, relative to the build folder.
    problems: (dir: string) => [
      expect.stringMatching(
        new RegExp(
          `^sam package: Unable to upload artifact \\S+/LICENSE\\.txt referenced by LicenseUrl parameter of AWS::ServerlessRepo::Application resource\\.\nParameter LicenseUrl of resource AWS::ServerlessRepo::Application refers to a file or folder that does not exist ${literal(join(dir, "LICENSE.txt"))}$`,
        ),
      ),
    ],
  },
  {
    label: "with a SemanticVersion that is not package.json's",
    edit: [/^ {4}SemanticVersion: .*\n/m, `    SemanticVersion: ${NEXT_VERSION}\n`],
    problems: () => [`SemanticVersion ${NEXT_VERSION} is not package.json's version, ${PACKAGE_JSON.version}: a release sets both`],
  },
  {
    label: "with a SemanticVersion that is not semver",
    edit: [/^ {4}SemanticVersion: .*\n/m, `    SemanticVersion: v${PACKAGE_JSON.version}\n`],
    problems: () => [
      `SemanticVersion v${PACKAGE_JSON.version} is not a semantic version (https://semver.org): set it to package.json's version, ${PACKAGE_JSON.version}`,
    ],
  },
  {
    label: "with an Author the service refuses",
    edit: [/^ {4}Author: .*\n/m, "    Author: Warp Start\n"],
    problems: () => [`Author "Warp Start" is not what the service accepts: ${LIMITS.Author![1]}`],
  },
] as const;

const workDir = realpathSync(mkdtempSync(join(tmpdir(), "warpstart-sar-")));
const copies = BROKEN.map(({ label, edit: [from, to] }, index) => {
  const dir = join(workDir, String(index));
  const text = readFileSync(DEMO_TEMPLATE, "utf8");
  if (!from.test(text)) throw new Error(`template.yaml has no line ${from} to replace for the copy ${label}`);
  mkdirSync(dir);
  for (const file of ["LICENSE", "README.md"]) cpSync(join(DEMO_ROOT, file), join(dir, file));
  writeFileSync(join(dir, "template.yaml"), text.replace(from, to));
  return { dir, template: join(dir, "template.yaml") };
});

let outcomes: Record<string, Outcome>;
beforeAll(async () => {
  outcomes = await publishOutcomes([DEMO_TEMPLATE, ...copies.map((copy) => copy.template)]);
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("template.yaml's AWS::ServerlessRepo::Application metadata", () => {
  it("would publish: nothing stops sam package or sam publish, and the version, license, files and limits hold", () => {
    expect(problemsOf(outcomes[DEMO_TEMPLATE]!, DEMO_TEMPLATE)).toEqual([]);
  });

  it("has sam package upload LICENSE and README.md, and sam publish send their S3 URLs and package.json's version", () => {
    const { package: packaged, publish } = outcomes[DEMO_TEMPLATE]!;
    const s3Object = expect.stringMatching(/^s3:\/\/warpstart-artifacts\/[0-9a-f]{32}$/);
    expect(packaged.uploads).toEqual({
      LicenseUrl: { source: join(realpathSync(DEMO_ROOT), "LICENSE"), url: s3Object },
      ReadmeUrl: { source: join(realpathSync(DEMO_ROOT), "README.md"), url: s3Object },
    });
    const [license, readme] = [packaged.uploads.LicenseUrl!.url, packaged.uploads.ReadmeUrl!.url];
    const version = PACKAGE_JSON.version;
    // A first publish creates the application with its first version.
    expect(publish.create?.requests).toEqual([
      [
        "CreateApplication",
        expect.objectContaining({ Name: "warpstart", LicenseUrl: license, ReadmeUrl: readme, SemanticVersion: version, SpdxLicenseId: PACKAGE_JSON.license }),
      ],
    ]);
    // Once it exists, a publish updates it and adds the version.
    expect(publish.update?.requests.map(([operation]) => operation)).toEqual(["CreateApplication", "UpdateApplication", "CreateApplicationVersion"]);
    expect(publish.update?.requests[1]?.[1]).toMatchObject({ ReadmeUrl: readme });
    expect(publish.update?.requests[2]?.[1]).toMatchObject({ SemanticVersion: version });
  });
});

describe.each(BROKEN.map((broken, index) => ({ ...broken, ...copies[index]! })))("a copy of template.yaml $label", ({ dir, template, problems }) => {
  it("gets a message that names the mistake, and no other", () => {
    expect(problemsOf(outcomes[template]!, template)).toEqual(problems(dir));
  });
});
