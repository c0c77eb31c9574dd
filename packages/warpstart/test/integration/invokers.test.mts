// Functions no Events entry names, invoked by another resource of the template
// (test/fixtures/sam-apps/invokers): `npx warpstart invoke` of a custom resource's function, whose
// handler PUTs its response to the request's ResponseURL on port 443 as cfn-response does, and the
// local AWS takes it; of a Step Functions task, which gets {} and a line saying why and how to
// give an event, after the custom resource's provider got its Create request as the lab started;
// the generated events of REST routes behind a Lambda authorizer and of an ApiGatewayV2 route of
// payload format 1.0; and `npx warpstart aws`, which runs no provider, saying so.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { NODE22, PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";
import { TOOLS_ENV } from "../support/as-lambda.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { WARPSTART } from "../support/warpstart.mts";

const TEMPLATE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/invokers/template.yaml");
const fn = (logicalId: string) => readTemplate(TEMPLATE).functions.find((candidate) => candidate.logicalId === logicalId)!;
const invoke = (logicalId: string) =>
  spawnSync(NODE22, [WARPSTART, "invoke", "--template", TEMPLATE, logicalId], { cwd: DEMO_ROOT, encoding: "utf8", timeout: 120_000, env: TOOLS_ENV });
const GIVE_ONE =
  "give one in events/OnCharge.json beside the template (the doctor, npx warpstart invoke and the bench send it), or to one invoke with --event FILE";

it("npx warpstart invoke of a custom resource's function: its Create request, whose ResponseURL the local AWS answers, and the response it PUT there", () => {
  const run = invoke("OnSetup");
  expect([run.status, run.stderr.split("\n").filter((line) => /error|refused/i.test(line))]).toEqual([0, []]);
  expect(JSON.parse(run.stdout)).toEqual({ responded: 200 });
  // The invoke's own request is the only one it gets: the lab sends none as it starts.
  expect(run.stderr).not.toContain("the Create request went to its provider");
  const said = /^== OnSetup's response to CloudFormation \(the PUT to its ResponseURL\): (.+)$/m.exec(run.stderr);
  expect(JSON.parse(said![1]!)).toMatchObject({
    Status: "SUCCESS",
    PhysicalResourceId: "setup-fixture-invokers-uploads",
    LogicalResourceId: "Setup",
    Data: { Retries: "3" },
  });
}, 120_000);

it("npx warpstart invoke of a Step Functions task's function: {}, and a line saying it sent {} for want of an event, why, and how to give one", () => {
  const run = invoke("OnCharge");
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({ event: {} });
  // As after a deploy, the custom resource's provider got its Create request when the lab started (built along for it).
  const created =
    /^Setup \(Custom::Setup\): the Create request went to its provider, and OnSetup's response to CloudFormation \(the PUT to its ResponseURL\): (.+)$/m.exec(
      run.stderr,
    );
  expect(JSON.parse(created![1]!)).toMatchObject({ Status: "SUCCESS", LogicalResourceId: "Setup" });
  expect(run.stderr).toContain(
    `== OnCharge: sent {} for want of an event (it is the task of state Charge of the state machine Orders, whose input is that state's input, which the template does not fix): ${GIVE_ONE}`,
  );
}, 120_000);

it("a REST route behind its API's Lambda authorizer gets requestContext.authorizer as API Gateway adds it, a placeholder; one whose Auth is NONE none", () => {
  expect(functionEvent(fn("OnSecret"))).toMatchObject({
    httpMethod: "GET",
    path: "/secret",
    requestContext: { authorizer: { principalId: "warpstart-lab-user", integrationLatency: 0 } },
  });
  expect((functionEvent(fn("OnPublic")).requestContext as Record<string, unknown>).authorizer).toBeUndefined();
});

it("an ApiGatewayV2 HTTP route gets the HTTP API request of its route; one of payload format 1.0, the REST API's", () => {
  expect(functionEvent(fn("OnItem"))).toMatchObject({ version: "2.0", routeKey: "GET /items/{id}", rawPath: "/items/1", pathParameters: { id: "1" } });
  expect(functionEvent(fn("OnLegacy"))).toMatchObject({ httpMethod: "POST", path: "/legacy", resource: "/legacy" });
});

it("npx warpstart aws, the local AWS alone: a line says the custom resource's provider gets its Create request only where the lab serves it", async () => {
  const aws = spawn(NODE22, [WARPSTART, "aws", "--template", TEMPLATE], { cwd: DEMO_ROOT, env: TOOLS_ENV, stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  try {
    for await (const line of createInterface({ input: aws.stdout! })) {
      lines.push(line);
      if (line.startsWith("export AWS_ENDPOINT_URL=")) break;
    }
  } finally {
    aws.kill("SIGTERM");
    await once(aws, "exit");
  }
  expect(lines).toContain("Setup (Custom::Setup): its provider OnSetup gets the Create request when the lab serves it (npx warpstart lab), not here");
}, 60_000);
