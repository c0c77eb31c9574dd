// The function of the AWS Compute Blog's "Using Node.js ES modules and top-level await in AWS
// Lambda" written the way top-level await replaces, built as CommonJS (the template's
// BuildProperties Format: cjs): INIT starts the SSM call and does not wait for it, so the first
// invoke waits for what is left of it, even on a provisioned environment.
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { invokeFacts, json, stopwatch } from "../../shared/report.mts";

declare const PARAMETER_NAME: string;

const ssm = new SSMClient({});

const elapsedMs = stopwatch();
let parameter = ssm.send(new GetParameterCommand({ Name: PARAMETER_NAME })).then(({ Parameter }) => ({ value: Parameter?.Value, initCallMs: elapsedMs() }));
// Handled at once, so a failure is never an unhandled rejection that ends the process between invokes.
parameter.catch(() => undefined);

export const handler = async () => {
  const elapsedMs = stopwatch();
  try {
    const { value, initCallMs } = await parameter;
    return json({ ...invokeFacts(), parameter: PARAMETER_NAME, value, initCallMs, waitedMs: elapsedMs() });
  } catch (error) {
    // The next invoke tries again, as a new environment would.
    parameter = ssm.send(new GetParameterCommand({ Name: PARAMETER_NAME })).then(({ Parameter }) => ({ value: Parameter?.Value, initCallMs: 0 }));
    parameter.catch(() => undefined);
    throw error;
  }
};
