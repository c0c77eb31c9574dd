// Secret's Floor: its INIT's GetSecretValue with no AWS SDK (an AWS JSON call over node:https,
// SigV4-signed), answering with the same fields (the secret's length, never the secret).
import { awsJsonClient } from "../../shared/aws-json-floor.mts";
import { invokeFacts, json, stopwatch } from "../../shared/report.mts";

declare const SECRET_ID: string;

const secrets = awsJsonClient({ serviceId: "Secrets Manager", signingName: "secretsmanager", targetPrefix: "secretsmanager", jsonVersion: "1.1" });

const elapsedMs = stopwatch();
const { SecretString } = await secrets<{ SecretString?: string }>("GetSecretValue", { SecretId: SECRET_ID });
const initCallMs = elapsedMs();

export const handler = async () => json({ ...invokeFacts(), secretId: SECRET_ID, secretLength: SecretString?.length ?? 0, initCallMs });
