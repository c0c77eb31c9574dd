// What `sam deploy` would create, without AWS, as checks over deploys of built templates: they run
// on the project's templates (test/integration/deploy.test.mts) and on a copy of template.yaml to
// which a user added a function (test/slow/user-function.test.mts). sam-translate.py points
// each built template's artifacts at S3 as `sam package` does, runs SAM CLI's own SAM transform and
// cfn-lint, and refuses any connection. The CloudFormation that comes out is evaluated for the
// deploy's parameter values by the lab's evaluator (core/template.mts) and must hold what every
// function needs; the demo's conventions hold only for the demo's functions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtTemplateOf, VENV_BIN } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { RUNTIMES, type RuntimeName, TEMPLATE_RUNTIMES } from "../../core/runtimes.mts";
import { type ResourceAttributes, readTemplate, type TemplateFunction, type TemplateResource, templateAsWritten } from "../../core/template.mts";

export interface Deploy {
  label: string;
  /** The source template: its built one (`sam build`, the integration project's globalSetup) is deployed. */
  template: string;
  parameters: Record<string, string>;
  runtime: RuntimeName;
  provisionedConcurrency: number;
  /** The functions held to the demo's conventions (arm64, 512 MB, no environment variables); the others only to what every function needs. */
  demoFunctions: readonly string[];
}

/** template.yaml's deploys (of `template`, the project's or a copy): every Runtime, provisioned concurrency off and on. */
export function templateYamlDeploys(template: string, name: string, demoFunctions: readonly string[]): Deploy[] {
  return TEMPLATE_RUNTIMES.flatMap((runtime) =>
    [0, 2].map((provisionedConcurrency) => ({
      label: `${name} with Runtime=${runtime} ProvisionedConcurrency=${provisionedConcurrency}`,
      template,
      parameters: { Runtime: runtime, ProvisionedConcurrency: String(provisionedConcurrency) },
      runtime,
      provisionedConcurrency,
      demoFunctions,
    })),
  );
}

/**
 * What a deploy with these parameter values creates from a CloudFormation template: the resources
 * whose Condition holds, their properties and the Outputs evaluated. Each resource answers Ref with
 * its logical id and Fn::GetAtt with "id.attribute", so a reference to anything the deploy does
 * not create fails to evaluate.
 */
function createdStack(cloudFormation: string, parameters: Record<string, string>) {
  const template = readTemplate(cloudFormation, parameters);
  // Every resource the deploy creates, its functions (AWS::Lambda::Function once translated) among them.
  const created: TemplateResource[] = [
    ...template.resources,
    ...template.functions.map(({ logicalId }) => {
      const entry = template.raw.Resources[logicalId]!;
      return { logicalId, type: entry.Type, properties: (entry.Properties ?? {}) as Record<string, unknown> };
    }),
  ];
  const answers = Object.fromEntries(
    created.map(({ logicalId }) => [
      logicalId,
      new Proxy<ResourceAttributes>({}, { get: (_, attribute) => (attribute === "Ref" ? logicalId : `${logicalId}.${String(attribute)}`) }),
    ]),
  );
  return {
    resources: created.map(
      (resource): TemplateResource => ({ ...resource, properties: template.resolve(resource.properties, answers) as Record<string, unknown> }),
    ),
    outputs: () => template.resolve(templateAsWritten(cloudFormation).Outputs, answers),
  };
}

/** Translates every deploy's built template once (beforeAll), then checks what each creates. */
export function deployChecks(deploys: Deploy[]): void {
  const outputDir = mkdtempSync(join(tmpdir(), "warpstart-deploy-"));
  const translated = deploys.map((deploy, index) => ({ ...deploy, cloudFormation: join(outputDir, `${index}.json`) }));
  /** cfn-lint's errors and warnings, by CloudFormation template. */
  let lintFindings: Record<string, string[]>;

  beforeAll(async () => {
    const jobs = translated.map((deploy) => ({ template: builtTemplateOf(deploy.template), parameters: deploy.parameters, output: deploy.cloudFormation }));
    const { stdout } = await execOwned(join(VENV_BIN, "python"), [join(import.meta.dirname, "sam-translate.py"), JSON.stringify(jobs)]);
    lintFindings = JSON.parse(stdout);
  });

  afterAll(() => rmSync(outputDir, { recursive: true, force: true }));

  describe.each(translated)("a deploy of $label", ({ template, parameters, runtime: runtimeName, provisionedConcurrency, demoFunctions, cloudFormation }) => {
    const functions = readTemplate(template, parameters).functions;
    const runtime = RUNTIMES[runtimeName];
    const layer = runtime.kind === "custom" ? runtime.layer : null;
    let stack: ReturnType<typeof createdStack>;
    beforeAll(() => {
      stack = createdStack(cloudFormation, parameters);
    });
    const ofType = (type: string) => stack.resources.filter((resource) => resource.type === type);
    const lambdaOf = (fn: TemplateFunction) => ofType("AWS::Lambda::Function").find((resource) => resource.logicalId === fn.logicalId);
    const aliasOf = (fn: TemplateFunction) => ofType("AWS::Lambda::Alias").find((resource) => resource.properties.FunctionName === fn.logicalId);
    /** One entry per function of the source template (or of `among`), so a failed expectation names the function. */
    const perFunction = (entry: (fn: TemplateFunction) => unknown, among = functions) => Object.fromEntries(among.map((fn) => [fn.logicalId, entry(fn)]));

    it("is CloudFormation in which cfn-lint finds no error and no warning", () => {
      expect(lintFindings[cloudFormation]).toEqual([]);
    });

    it(`creates every function with a live alias, ${provisionedConcurrency ? `${provisionedConcurrency} environments provisioned` : "no provisioned concurrency"}`, () => {
      expect(
        perFunction((fn) => ({
          type: lambdaOf(fn)?.type,
          alias: aliasOf(fn)?.properties.Name,
          provisioned: aliasOf(fn)?.properties.ProvisionedConcurrencyConfig,
        })),
      ).toEqual(
        perFunction(() => ({
          type: "AWS::Lambda::Function",
          alias: "live",
          provisioned: provisionedConcurrency ? { ProvisionedConcurrentExecutions: String(provisionedConcurrency) } : undefined,
        })),
      );
    });

    it(`runs every function on ${runtime.lambdaRuntime}, ${layer ? `from the ${layer} layer, the only one created` : "with no layer"}`, () => {
      const layers = ofType("AWS::Lambda::LayerVersion");
      expect(layers.map((version) => version.properties.LayerName)).toEqual(layer ? [layer] : []);
      // An old version holds a runtime binary: none is kept after an update or the stack's deletion.
      const resources = templateAsWritten(cloudFormation).Resources as Record<string, { DeletionPolicy?: string }>;
      expect(layers.map((version) => resources[version.logicalId]?.DeletionPolicy)).toEqual(layer ? ["Delete"] : []);
      expect(perFunction((fn) => ({ runtime: lambdaOf(fn)?.properties.Runtime, layers: lambdaOf(fn)?.properties.Layers }))).toEqual(
        perFunction(() => ({ runtime: runtime.lambdaRuntime, layers: layer ? layers.map((version) => version.logicalId) : undefined })),
      );
    });

    it("makes every demo function arm64 with 512 MB and no environment variables", () => {
      const demo = functions.filter((fn) => demoFunctions.includes(fn.logicalId));
      expect(demo.map((fn) => fn.logicalId).sort()).toEqual([...demoFunctions].sort());
      const settings = (fn: TemplateFunction) => {
        const { Architectures, MemorySize, Environment } = lambdaOf(fn)?.properties ?? {};
        return { Architectures, MemorySize, Environment };
      };
      // toEqual takes an undefined property for a missing one: any Environment at all fails.
      expect(perFunction(settings, demo)).toEqual(perFunction(() => ({ Architectures: ["arm64"], MemorySize: 512 }), demo));
    });

    it("outputs only what it creates: every Ref, Fn::GetAtt and Fn::Sub variable in Outputs names a parameter or a created resource", () => {
      expect(stack.outputs).not.toThrow();
    });

    it("serves each function's GET route from the HTTP API's $default stage through its live alias, which API Gateway may invoke", () => {
      const [api, ...others] = ofType("AWS::ApiGatewayV2::Api");
      expect(others).toEqual([]);
      expect(ofType("AWS::ApiGatewayV2::Stage").map((stage) => stage.properties)).toEqual([
        expect.objectContaining({ ApiId: api?.logicalId, StageName: "$default", AutoDeploy: true }),
      ]);
      const routed = functions.filter((fn) => fn.httpPath);
      const integration = (fn: TemplateFunction) => ({ uri: expect.stringContaining(`/functions/${aliasOf(fn)?.logicalId}/invocations`) });
      expect(api?.properties.Body).toMatchObject({
        paths: Object.fromEntries(routed.map((fn) => [fn.httpPath, { get: { "x-amazon-apigateway-integration": integration(fn) } }])),
      });
      expect(ofType("AWS::Lambda::Permission").map((permission) => permission.properties)).toEqual(
        expect.arrayContaining(
          routed.map((fn) =>
            expect.objectContaining({ FunctionName: aliasOf(fn)?.logicalId, Principal: "apigateway.amazonaws.com", Action: "lambda:InvokeFunction" }),
          ),
        ),
      );
    });
  });
}
