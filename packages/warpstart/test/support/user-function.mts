// The README's "Your function" step on a copy of template.yaml in a temporary folder (never the
// project's own): a user adds a function of their own, which keeps none of the demo's conventions.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { builtTemplateOf } from "../../core/paths.mts";
import { DEMO_ROOT, DEMO_TEMPLATE } from "./demo.mts";

export const USER_FUNCTION = "Mine";

/** Environment variables, its own memory size, no route, no log group, no output, a permission of its own. */
const SOURCE = `
  Mine:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: makefile
    Properties:
      Handler: src/functions/mine/index.handler
      MemorySize: 1024
      Environment:
        Variables:
          GREETING: hello
      Policies:
        - SSMParameterReadPolicy: { ParameterName: mine/greeting }
`;

/** As `sam build` writes it into the built template: as written, but Metadata names its SamResourceId and CodeUri its artifact's folder. */
const BUILT = `${SOURCE.replace("      BuildMethod: makefile\n", "      BuildMethod: makefile\n      SamResourceId: Mine\n")}      CodeUri: Mine\n`;

/** `text` with `resource` added at the end of Resources (before Outputs), as a user edits the file. */
function withResource(text: string, resource: string): string {
  if (!/\nOutputs:/.test(text)) throw new Error("the template has no Outputs section to add the function before");
  return text.replace(/\nOutputs:/, `${resource}\nOutputs:`);
}

/**
 * A copy of template.yaml with the user's function, beside a copy of src/ with its handler, and
 * the copy's built template: the project's (`sam build`, the integration project's globalSetup)
 * with the function as `sam build` writes one. The deploy checks read only the built template
 * (sam-translate.py names each artifact by its folder and uploads nothing).
 */
export function templateWithUserFunction(): { template: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "warpstart-user-function-"));
  const template = join(dir, "template.yaml");
  cpSync(join(DEMO_ROOT, "src"), join(dir, "src"), { recursive: true }); // the demo's handlers, whose sources the checks find
  mkdirSync(join(dir, "src/functions/mine"));
  writeFileSync(join(dir, "src/functions/mine/index.mts"), "export const handler = async () => ({ greeting: process.env.GREETING });\n");
  writeFileSync(template, withResource(readFileSync(DEMO_TEMPLATE, "utf8"), SOURCE));
  mkdirSync(dirname(builtTemplateOf(template)), { recursive: true });
  writeFileSync(builtTemplateOf(template), withResource(readFileSync(builtTemplateOf(DEMO_TEMPLATE), "utf8"), BUILT));
  return { template, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
