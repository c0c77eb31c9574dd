// What a Warp build's INIT runs against: AWS's services, with the template's resources in them,
// on this machine. The builder asks for them through this interface and never starts them itself;
// the local AWS implements it (emulation/local-aws/build-services.mts): `warpstart build` (SAM's
// makefile builder, once per function) gets the one a whole `sam build` shares, the lab, the bench
// and the doctor one of a build's own.
import type { ResourceAttributes, SamTemplate, TemplateFunction } from "./template.mts";

/** One call the services answered (as the local AWS's app.py records it). */
export interface AwsCall {
  accessKeyId: string | null;
  region: string | null;
  /** The signing name, e.g. ssm, dynamodb, secretsmanager, sts. */
  service: string | null;
  /** e.g. GetParameter; for REST services the method and path, e.g. "GET /bucket/key". */
  operation: string;
  /** Seconds since the epoch when it arrived. */
  startedAt: number;
  status: number;
  ms: number;
  errorCode?: string | null;
  errorMessage?: string | null;
  /** A custom resource's response (operation CustomResourceResponse): what its function PUT to its ResponseURL. */
  response?: unknown;
}

export interface InitServices {
  /** The endpoint every client of the INIT calls, and the CA its certificate is signed by. */
  endpoint: string;
  caFile: string;
  /** Where the INIT's X-Ray segments go (host:port). */
  xrayAddress: string;
  /** What they hold, for a message when INIT asks for something else. */
  holds: string;
  /** Ref and Fn::GetAtt of the template's resources as they were made there: what the function's environment reads. */
  attributes: Record<string, ResourceAttributes>;
  /** The calls signed with an access key, in order: what an INIT that failed asked for. */
  calls(accessKeyId: string): Promise<AwsCall[]>;
  /** Done with them: what was started for this build alone stops. */
  release(): Promise<void>;
}

/** Services holding the template's resources, and the data the function's event names (an S3 object, a table's item). */
export type OpenInitServices = (template: SamTemplate, fn: TemplateFunction) => Promise<InitServices>;

/**
 * Services opened now for a build that asks for them later, so that they start while it bundles
 * (the local AWS's start and the template's resources take seconds at a `sam build`'s first Warp
 * build): the first ask takes them, a later one opens its own. `close` releases them if no ask did.
 */
export function openAhead(open: OpenInitServices, template: SamTemplate, fn: TemplateFunction): { open: OpenInitServices; close(): void } {
  let ahead: Promise<InitServices> | null = open(template, fn);
  ahead.catch(() => {}); // a failure is the first ask's to report
  return {
    open: (asked, askedFn) => {
      const taken = ahead;
      ahead = null;
      return taken ?? open(asked, askedFn);
    },
    close: () => {
      void ahead?.then(
        (services) => services.release(),
        () => {},
      );
      ahead = null;
    },
  };
}
