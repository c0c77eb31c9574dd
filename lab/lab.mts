// The local Lambda lab: the local STS and the Lambda API for every function of the built
// template, on 127.0.0.1 free ports. stop() ends everything it started.
import { join } from "node:path";
import { InvokeApi } from "./emulator/invoke-api.mts";
import { LambdaService } from "./emulator/lambda-service.mts";
import { BUILD_DIR } from "./paths.mts";
import { type LocalSts, startLocalSts } from "./sts/local-sts.mts";
import { type TemplateFunction, templateFunctions } from "./template.mts";

export interface Lab {
  /** The Lambda API endpoint, for @aws-sdk/client-lambda's `endpoint`. */
  endpoint: string;
  sts: LocalSts;
  lambda: LambdaService;
  stop(): Promise<void>;
}

export interface LabOptions {
  /** The built template to serve (default .aws-sam/build/template.yaml). */
  template?: string;
  port?: number;
  /** Functions served beside the template's (e.g. the bench's Warp ablations). */
  extraFunctions?: TemplateFunction[];
  /** Receives every line functions print (with the function's name). */
  onFunctionLine?: (functionName: string, line: string) => void;
}

export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const functions = [...templateFunctions(options.template ?? join(BUILD_DIR, "template.yaml")), ...(options.extraFunctions ?? [])];
  const sts = await startLocalSts();
  const lambda = new LambdaService(functions, { stsEndpoint: sts.endpoint, caFile: sts.caFile }, options.onFunctionLine);
  const api = new InvokeApi(lambda);
  let endpoint: string;
  try {
    endpoint = await api.listen(options.port);
  } catch (error) {
    await sts.stop();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  const lab: Lab = {
    endpoint,
    sts,
    lambda,
    // lab.sts, not sts: a test may replace the STS (stop it, start another on the same port).
    stop: () => (stopped ??= Promise.all([api.close(), lambda.close()]).then(() => lab.sts.stop())),
  };
  return lab;
}
