// A deployed stack (sam deploy) as the bench, the load test and warp:pin read it: its outputs and
// its functions' names, through CloudFormation, with errors that name the stack, its region and
// what is missing.
import type { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { errorMessage } from "./errors.mts";
import { DEFAULT_RUNTIME } from "./runtimes.mts";
import { cloudFormationSdk } from "./tools.mts";

/** A CloudFormation client of the region (its default chain's when undefined). */
const clientIn = async (region: string | undefined) => new (await cloudFormationSdk()).CloudFormationClient({ region });

/** " in <region>", the client's, for a message (empty when it has none: the call failed for that). */
const inRegion = (client: CloudFormationClient) =>
  client.config.region().then(
    (region) => ` in ${region}`,
    () => "",
  );

/** A stack's outputs, by key. */
export async function stackOutputs(stack: string, region: string | undefined, given?: CloudFormationClient): Promise<Record<string, string>> {
  const client = given ?? (await clientIn(region));
  const { DescribeStacksCommand } = await cloudFormationSdk();
  const described = await client.send(new DescribeStacksCommand({ StackName: stack })).catch(async (error: unknown) => {
    throw new Error(`cannot describe the stack ${stack}${await inRegion(client)}: ${errorMessage(error)}`);
  });
  const outputs = described.Stacks?.[0]?.Outputs ?? [];
  return Object.fromEntries(
    outputs.flatMap((output) => (output.OutputKey && output.OutputValue !== undefined ? [[output.OutputKey, output.OutputValue]] : [])),
  );
}

/**
 * A stack's runtime (its Runtime output; stacks older than it ran node22) and the names of the
 * `wanted` functions (logical ids) it has: from its <LogicalId>FunctionName outputs (this
 * template's), else from its AWS::Lambda::Function resources (any SAM app's: SAM keeps a
 * function's logical id), listed only when an output is missing.
 */
export async function describeStack(
  stack: string,
  region: string | undefined,
  wanted: string[],
  given?: CloudFormationClient,
): Promise<{ runtime: string; functions: Map<string, string> }> {
  const client = given ?? (await clientIn(region));
  const outputs = await stackOutputs(stack, region, client);
  const functions = new Map(
    Object.entries(outputs).flatMap(([key, value]) => (key.endsWith("FunctionName") ? [[key.slice(0, -"FunctionName".length), value]] : [])),
  );
  if (!wanted.every((logicalId) => functions.has(logicalId))) {
    try {
      const { paginateListStackResources } = await cloudFormationSdk();
      for await (const page of paginateListStackResources({ client }, { StackName: stack })) {
        for (const { ResourceType, LogicalResourceId, PhysicalResourceId } of page.StackResourceSummaries ?? []) {
          if (ResourceType === "AWS::Lambda::Function" && LogicalResourceId && PhysicalResourceId && !functions.has(LogicalResourceId))
            functions.set(LogicalResourceId, PhysicalResourceId);
        }
      }
    } catch (error) {
      throw new Error(`cannot list the resources of the stack ${stack}${await inRegion(client)}: ${errorMessage(error)}`, { cause: error });
    }
  }
  return { runtime: outputs.Runtime ?? DEFAULT_RUNTIME, functions };
}
