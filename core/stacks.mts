// A deployed stack (sam deploy) as the bench and the load test read it: its outputs, through
// CloudFormation's DescribeStacks, with an error that names the stack and what is missing.
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { errorMessage } from "./cli.mts";

/** A stack's outputs, by key. */
export async function stackOutputs(stack: string, region: string | undefined, client = new CloudFormationClient({ region })): Promise<Record<string, string>> {
  const described = await client.send(new DescribeStacksCommand({ StackName: stack })).catch((error: unknown) => {
    throw new Error(`cannot describe the stack ${stack}${region ? ` in ${region}` : ""}: ${errorMessage(error)}`);
  });
  const outputs = described.Stacks?.[0]?.Outputs ?? [];
  return Object.fromEntries(
    outputs.flatMap((output) => (output.OutputKey && output.OutputValue !== undefined ? [[output.OutputKey, output.OutputValue]] : [])),
  );
}

/** A stack's function names by logical id, from its <LogicalId>FunctionName outputs. */
export function functionNames(outputs: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(outputs).flatMap(([key, value]) => (key.endsWith("FunctionName") ? [[key.slice(0, -"FunctionName".length), value]] : [])));
}
