// A stand-in for AWS made of real parts, for the commands that read a deployed stack (npm run
// bench -- --stack, npm run load -- --stack, npm run warp:pin): a lab whose Lambda API plays
// Lambda's (UpdateFunctionConfiguration, the waiter's GetFunction, Invoke with LogType Tail, 429
// beyond its concurrency limit) and whose local AWS (moto, over TLS) is the CloudFormation. moto's
// CloudFormation cannot create the SAM stack itself (it has no AWS::Lambda::Alias, no
// AWS::ApiGatewayV2::Api), so a stack here is small and has what the commands read: the outputs
// given, and an AWS::Lambda::Function per function given (with its role), named as the lab serves it.
// A command runs in a child process, as a user runs it, with an environment that reaches the
// stand-in alone: fake credentials, every endpoint set, the lab's CA trusted.
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { CloudFormationClient, CreateStackCommand } from "@aws-sdk/client-cloudformation";
import { builtTemplateOf, NODE22 } from "../../core/paths.mts";
import { spawnOwned } from "../../core/processes.mts";
import { LOOPBACK } from "../../emulation/local-aws/network.mts";
import { REGION } from "../../lab/emulator/lambda-service.mts";
import { type Lab, type LabOptions, startLab } from "../../lab/lab.mts";
import { DEMO_ROOT, DEMO_TEMPLATE } from "./demo.mts";
import { WARPSTART } from "./warpstart.mts";

export interface StandInAws {
  lab: Lab;
  /**
   * Creates a stack in the stand-in's CloudFormation with these outputs (values or expressions) and,
   * per entry of `functions` (logical id → a function the lab serves, or not), an
   * AWS::Lambda::Function of that name, as a SAM app's stack has. moto's Lambda holds each name
   * once: a lab function can be a resource of one stack only.
   */
  createStack(name: string, outputs: Record<string, unknown>, functions?: Record<string, string>): Promise<void>;
  /** Runs a command of `program` (warpstart's, or a project copy's) in the project's folder with Node 22 against the stand-in; `env` adds to its environment. */
  run(command: string, args: string[], env?: Record<string, string>, program?: string): Promise<{ status: number | null; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/** The outputs template.yaml's stacks name their functions with: <LogicalId>FunctionName, for the lab's functions of the same names. */
export const functionNameOutputs = (names: string[]) => Object.fromEntries(names.map((name) => [`${name}FunctionName`, name]));

/** A lab of the project's build (by default: network and code loading as on loopback, since nothing here is timed) and its CloudFormation. */
export async function startStandInAws(options: Omit<LabOptions, "template"> = {}): Promise<StandInAws> {
  const lab = await startLab({ template: builtTemplateOf(DEMO_TEMPLATE), fidelity: { network: LOOPBACK, codeLoading: "none" }, ...options });
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_"))) as Record<string, string>),
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: "stand-in",
    AWS_SECRET_ACCESS_KEY: "stand-in",
    // Nothing of this machine's AWS configuration, no instance metadata: the keys above alone.
    AWS_CONFIG_FILE: "/dev/null",
    AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
    AWS_EC2_METADATA_DISABLED: "true",
    // Lambda is the lab's; CloudFormation and any other service the local AWS's.
    AWS_ENDPOINT_URL: lab.aws.endpoint,
    AWS_ENDPOINT_URL_CLOUDFORMATION: lab.aws.endpoint,
    AWS_ENDPOINT_URL_LAMBDA: lab.endpoint,
    NODE_EXTRA_CA_CERTS: lab.aws.caFile,
    CI: "true",
  };
  const cloudformation = new CloudFormationClient({
    region: REGION,
    endpoint: lab.aws.endpoint,
    credentials: { accessKeyId: "stand-in", secretAccessKey: "stand-in" },
    requestHandler: { httpsAgent: new Agent({ ca: readFileSync(lab.aws.caFile) }) },
  });
  return {
    lab,
    async createStack(name, outputs, functions = {}) {
      // A stack has at least one resource: the functions' role.
      const resources: Record<string, unknown> = {
        StandInRole: { Type: "AWS::IAM::Role", Properties: { AssumeRolePolicyDocument: { Version: "2012-10-17", Statement: [] } } },
      };
      for (const [logicalId, functionName] of Object.entries(functions)) {
        resources[logicalId] = {
          Type: "AWS::Lambda::Function",
          Properties: {
            FunctionName: functionName,
            Runtime: "nodejs22.x",
            Handler: "index.handler",
            Role: { "Fn::GetAtt": ["StandInRole", "Arn"] },
            Code: { ZipFile: "exports.handler = async () => null;" },
          },
        };
      }
      const template = { Resources: resources, Outputs: Object.fromEntries(Object.entries(outputs).map(([key, value]) => [key, { Value: value }])) };
      await cloudformation.send(new CreateStackCommand({ StackName: name, TemplateBody: JSON.stringify(template) }));
    },
    // Asynchronous: the lab answers from this process.
    run: (command, args, extra = {}, program = WARPSTART) =>
      new Promise((done, fail) => {
        const child = spawnOwned(NODE22, [program, command, ...args], { cwd: DEMO_ROOT, env: { ...env, ...extra }, timeout: 120_000 });
        let [stdout, stderr] = ["", ""];
        child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
        });
        child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
        });
        child.on("error", fail);
        child.on("close", (status) => done({ status, stdout, stderr }));
      }),
    stop: () => lab.stop(),
  };
}
