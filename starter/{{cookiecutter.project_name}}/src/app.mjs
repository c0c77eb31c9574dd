// One client per execution environment, and the work every invoke needs done during INIT, with
// top-level await: it is over before the first request arrives, and Warp's code cache holds what
// it compiled.
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { greetingResponse } from "./greeting.mjs";

/* global GREETING_PARAMETER: the parameter's name, embedded at build time (template.yaml's Define) */
const ssm = new SSMClient({});
const { Parameter } = await ssm.send(new GetParameterCommand({ Name: GREETING_PARAMETER }));

export const handler = async (event) => greetingResponse(Parameter?.Value ?? "", event?.queryStringParameters?.name);
