// SsmParameter's Floor: its INIT's GetParameter with no AWS SDK (an AWS JSON call over node:https,
// SigV4-signed), answering with the same fields, so the bench can tell what the SDK costs.
import { awsJsonClient } from "../../shared/aws-json-floor.mts";
import { invokeFacts, json, stopwatch } from "../../shared/report.mts";

declare const PARAMETER_NAME: string;

const ssm = awsJsonClient({ serviceId: "SSM", signingName: "ssm", targetPrefix: "AmazonSSM", jsonVersion: "1.1" });

const elapsedMs = stopwatch();
const { Parameter } = await ssm<{ Parameter?: { Value?: string } }>("GetParameter", { Name: PARAMETER_NAME });
const initCallMs = elapsedMs();

export const handler = async () => json({ ...invokeFacts(), parameter: PARAMETER_NAME, value: Parameter?.Value, initCallMs });
