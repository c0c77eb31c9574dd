// Small synthetic functions as the doctor reads them (doctor/artifact.mts), for its unit tests.
import type { TemplateFunction } from "../../core/template.mts";
import type { BuiltFunction } from "../../doctor/artifact.mts";

export const templateFunction = (fn: Partial<TemplateFunction> = {}): TemplateFunction => ({
  logicalId: "Fn",
  templateFile: "/app/template.yaml",
  codeDir: "/artifact",
  handler: "index.handler",
  runtime: "nodejs22.x",
  memoryMb: 512,
  timeoutSeconds: 3,
  architecture: "arm64",
  tracing: false,
  provisionedConcurrency: 0,
  alias: null,
  httpPath: null,
  eventSource: null,
  sampleEvent: null,
  layers: [],
  foreignLayers: [],
  buildMethod: "makefile",
  buildProperties: {},
  floorOf: null,
  environment: {},
  whyNotOnDisk: null,
  inlineCode: null,
  ...fn,
});

/** A clean ES module function, bundled with its SDK; `changes` adds one problem. */
export const built = (changes: Partial<Omit<BuiltFunction, "fn">> & { fn?: Partial<TemplateFunction> } = {}): BuiltFunction => ({
  handlerFile: "index.mjs",
  format: "esm",
  pipeline: true,
  ownCode: [{ file: "src/index.mts", text: "export const handler = async () => 1;" }],
  besideHandler: ["index.mjs"],
  ...changes,
  graph: {
    bundledPackages: ["@aws-sdk/client-sts", "@smithy/core"],
    runtimeImports: [],
    ownFiles: [],
    bundle: { bytes: 1000, largestInputs: [] },
    ...changes.graph,
  },
  fn: templateFunction(changes.fn),
});
