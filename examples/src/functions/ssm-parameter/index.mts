// The function of the AWS Compute Blog's "Using Node.js ES modules and top-level await in AWS
// Lambda": read a configuration value from SSM Parameter Store during INIT, with top-level await,
// so the call is over before the first invoke (and, with provisioned concurrency, before any invoke
// at all). The parameter's name is fixed in the template and embedded at build time
// (BuildProperties.Define PARAMETER_NAME: !Ref GreetingParameter): no environment variable to read.
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { invokeFacts, json, stopwatch } from "../../shared/report.mts";

declare const PARAMETER_NAME: string;

// One client per execution environment, reused by every invoke.
const ssm = new SSMClient({});

const elapsedMs = stopwatch();
const { Parameter } = await ssm.send(new GetParameterCommand({ Name: PARAMETER_NAME }));
const initCallMs = elapsedMs();

export const handler = async () => json({ ...invokeFacts(), parameter: PARAMETER_NAME, value: Parameter?.Value, initCallMs });
