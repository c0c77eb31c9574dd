// A template's resources in the local AWS: the types the lab can create there (seed.py creates
// them through moto's API, as CloudFormation would), the names they get, and what Ref and
// Fn::GetAtt answer for them. The lab serves functions, layers and the HTTP API itself.
import { join } from "node:path";
import { VENV_BIN } from "../paths.mts";
import { spawnOwned } from "../processes.mts";
import type { ResourceAttributes, SamTemplate, TemplateResource } from "../template.mts";
import { LOCAL_REGION, type LocalAws } from "./local-aws.mts";

/** Each type the local AWS can hold, with the property that fixes its physical name. */
export const CREATABLE_TYPES: Record<string, { nameProperty: string; refIsName: boolean }> = {
  "AWS::SSM::Parameter": { nameProperty: "Name", refIsName: true },
  // Ref of a secret is its ARN, whose random suffix only the service knows once it exists.
  "AWS::SecretsManager::Secret": { nameProperty: "Name", refIsName: false },
  "AWS::DynamoDB::Table": { nameProperty: "TableName", refIsName: true },
  "AWS::Serverless::SimpleTable": { nameProperty: "TableName", refIsName: true },
  "AWS::S3::Bucket": { nameProperty: "BucketName", refIsName: true },
  "AWS::Logs::LogGroup": { nameProperty: "LogGroupName", refIsName: true },
};

/** What the lab runs itself rather than creating it in the local AWS. */
const SERVED_BY_THE_LAB = new Set(["AWS::Serverless::Function", "AWS::Serverless::LayerVersion", "AWS::Serverless::HttpApi"]);

/** The name a resource was given in the template (a plain string), or null when CloudFormation would make one up. */
export function fixedName(resource: TemplateResource): string | null {
  const type = CREATABLE_TYPES[resource.type];
  const name = type && resource.properties[type.nameProperty];
  return typeof name === "string" ? name : null;
}

/** The physical name the lab uses: the template's, or one made up as CloudFormation would (stack-logical id). */
function localName(resource: TemplateResource): string {
  const made = `warpstart-lab-${resource.logicalId}`;
  return fixedName(resource) ?? (resource.type === "AWS::S3::Bucket" ? made.toLowerCase() : made);
}

export interface CreatedResources {
  /** Ref and Fn::GetAtt values by logical id, for evaluating the template's references. */
  attributes: Record<string, ResourceAttributes>;
  /** One line naming what the lab did not create (empty when it created everything). */
  notCreated: string | null;
}

/** Runs seed.py with a request on stdin; resolves with its JSON answer. */
function seed(request: unknown, venvBin: string): Promise<Record<string, ResourceAttributes>> {
  return new Promise((resolve, reject) => {
    const child = spawnOwned(join(venvBin, "python"), [join(import.meta.dirname, "seed.py")], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PYTHONWARNINGS: "ignore" },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve(JSON.parse(Buffer.concat(out).toString("utf8")) as Record<string, ResourceAttributes>);
      reject(new Error(`the local AWS could not create the template's resources: ${Buffer.concat(err).toString("utf8").trim().split("\n").pop()}`));
    });
    child.stdin!.end(JSON.stringify(request));
  });
}

/**
 * Creates the template's resources in the local AWS, in template order, their properties
 * evaluated (parameters, and references to resources whose Ref is their name). Resources the lab
 * neither creates nor serves are named in `notCreated`.
 */
export async function createResources(template: SamTemplate, aws: Pick<LocalAws, "endpoint" | "caFile">, venvBin = VENV_BIN): Promise<CreatedResources> {
  const creatable = template.resources.filter((resource) => resource.type in CREATABLE_TYPES);
  const skipped = template.resources.filter((resource) => !(resource.type in CREATABLE_TYPES) && !SERVED_BY_THE_LAB.has(resource.type));
  // Names are known before anything exists: references to them can be evaluated up front.
  const names = Object.fromEntries(
    creatable.filter((resource) => CREATABLE_TYPES[resource.type]!.refIsName).map((resource) => [resource.logicalId, { Ref: localName(resource) }]),
  );
  const resources = creatable.map((resource) => ({
    logicalId: resource.logicalId,
    type: resource.type,
    name: localName(resource),
    properties: template.resolve(resource.properties, names),
  }));
  const attributes = resources.length ? await seed({ endpoint: aws.endpoint, caFile: aws.caFile, region: LOCAL_REGION, resources }, venvBin) : {};
  const notCreated = skipped.length
    ? `The lab does not create ${skipped.map((resource) => `${resource.logicalId} (${resource.type})`).join(", ")} in its local AWS (it creates ${Object.keys(CREATABLE_TYPES).join(", ")}): a function that calls ${skipped.length === 1 ? "it" : "them"} fails in the lab.`
    : null;
  return { attributes, notCreated };
}
