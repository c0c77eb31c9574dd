// The README's "Your function" step: a function a user adds to template.yaml is theirs. Added to a
// copy of the template with environment variables, 1024 MB and no route (test/support/user-function.mts),
// it passes the very checks the project's template passes: template.yaml's and load_test's
// (test/support/template-checks.mts) and the deploy's (test/support/deploy-checks.mts).
import { builtTemplateOf } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { DEMO_FUNCTIONS } from "../support/demo-functions.mts";
import { deployChecks, templateYamlDeploys } from "../support/deploy-checks.mts";
import { loadScenarioChecks, templateYamlChecks } from "../support/template-checks.mts";
import { templateWithUserFunction, USER_FUNCTION } from "../support/user-function.mts";

const copy = templateWithUserFunction();
afterAll(copy.remove);

it("holds the user's function as they wrote it, in the copy and its build: environment variables, 1024 MB, no route", () => {
  // Without it, the checks below would pass on a copy of the demo alone.
  for (const file of [copy.template, builtTemplateOf(copy.template)]) {
    expect(readTemplate(file).functions.find((fn) => fn.logicalId === USER_FUNCTION)).toMatchObject({
      memoryMb: 1024,
      environment: { GREETING: "hello" },
      httpPath: null,
      buildMethod: "makefile",
    });
  }
});

describe("template.yaml with a user's function", () => {
  templateYamlChecks(copy.template);
  loadScenarioChecks(copy.template, DEMO_FUNCTIONS);
});

deployChecks(templateYamlDeploys(copy.template, "template.yaml with a user's function", DEMO_FUNCTIONS));
