// The motivating case of "The Fastest Node 22 Lambda Coldstart Configuration" (No Backspace Crew):
// a secret read from Secrets Manager during INIT, with top-level await. The secret's name is
// embedded at build time (Define SECRET_ID: !Ref ApiKeySecret: the build embeds the secret's Name,
// which GetSecretValue takes as SecretId). Only its length is ever reported.
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { invokeFacts, json, stopwatch } from "../../shared/report.mts";

declare const SECRET_ID: string;

const secrets = new SecretsManagerClient({});

const elapsedMs = stopwatch();
const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: SECRET_ID }));
const initCallMs = elapsedMs();

export const handler = async () => json({ ...invokeFacts(), secretId: SECRET_ID, secretLength: SecretString?.length ?? 0, initCallMs });
