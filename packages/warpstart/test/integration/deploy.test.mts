// What `sam deploy` would create from the project's templates, without AWS: for every Runtime,
// provisioned concurrency off and on (the checks: test/support/deploy-checks.mts).
import { readTemplate } from "../../core/template.mts";
import { DEMO_TEMPLATE, EXAMPLES_TEMPLATE } from "../support/demo.mts";
import { DEMO_FUNCTIONS } from "../support/demo-functions.mts";
import { deployChecks, templateYamlDeploys } from "../support/deploy-checks.mts";

deployChecks([
  ...templateYamlDeploys(DEMO_TEMPLATE, "template.yaml", DEMO_FUNCTIONS),
  // Its defaults: nodejs22.x (it has no Runtime parameter), no provisioned concurrency; every function is an example.
  {
    label: "examples/template.yaml with its defaults",
    template: EXAMPLES_TEMPLATE,
    parameters: {},
    runtime: "node22",
    provisionedConcurrency: 0,
    demoFunctions: readTemplate(EXAMPLES_TEMPLATE).functions.map((fn) => fn.logicalId),
  },
]);
