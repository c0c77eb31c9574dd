// --fix (doctor/apply-fixes.mts): which fixes it writes into the template, and its guards before
// it writes: a template changed since the doctor read it, or read-only, is left as it is, with a
// message that says so.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixedTemplate, writeFixedTemplate } from "../../doctor/apply-fixes.mts";
import { type CheckId, type Examined, examine, finding } from "../../doctor/checks.mts";
import type { MeasuredCost } from "../../doctor/findings.mts";
import { built } from "../support/built-function.mts";

const READ = "Resources: {}\n";
const FIXED = "Resources: { Fn: {} }\n";
const scratch = mkdtempSync(join(tmpdir(), "warpstart-doctor-apply-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const templateWith = (text: string) => {
  const file = join(mkdtempSync(join(scratch, "app-")), "template.yaml");
  writeFileSync(file, text);
  return file;
};

it("writes the fixed text over the template as the doctor read it", () => {
  const file = templateWith(READ);
  writeFixedTemplate(file, READ, FIXED);
  expect(readFileSync(file, "utf8")).toBe(FIXED);
});

it("a template changed since the doctor read it: nothing written, and why", () => {
  const file = templateWith("Resources: { Edited: {} }\n");
  expect(() => writeFixedTemplate(file, READ, FIXED)).toThrow(
    `${file} changed since the doctor read it: nothing written; the diff above is what --fix would change; run the doctor again on it as it is now`,
  );
  expect(readFileSync(file, "utf8")).toBe("Resources: { Edited: {} }\n");
});

it("a read-only template, even to root: nothing written, and its mode", () => {
  const file = templateWith(READ);
  chmodSync(file, 0o440);
  expect(() => writeFixedTemplate(file, READ, FIXED)).toThrow(`${file} is read-only (mode 0440): nothing written; the diff above is what --fix would change`);
  expect(readFileSync(file, "utf8")).toBe(READ);
});

describe("what --fix writes", () => {
  const TEMPLATE = "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata:\n      BuildMethod: esbuild\n";
  const measured = (deltaCi95: [number, number] | null): MeasuredCost => ({
    metric: "init",
    rounds: 15,
    asIsMs: 100,
    fixedMs: 100,
    deltaMs: deltaCi95 ? (deltaCi95[0] + deltaCi95[1]) / 2 : 5,
    deltaCi95,
    ratio: 1,
    ratioCi95: null,
  });
  const examinedWith = (id: CheckId, cost: MeasuredCost | null): Examined => {
    const fn = built({ pipeline: false, fn: { logicalId: "Fn", buildMethod: "esbuild" } });
    const report = examine(fn);
    report.findings = [{ ...finding(id, "found"), measured: cost, whyNotMeasured: cost ? null : "not built" }];
    return { built: fn, report };
  };

  it("a fix the lab built and measured, in the function's BuildProperties", () => {
    const fixed = fixedTemplate(templateWith(TEMPLATE), TEMPLATE, [examinedWith("esbuild-target", measured([1, 9]))]);
    expect(fixed.applied).toEqual(["Fn: esbuild-target"]);
    expect(fixed.text).toBe(`${TEMPLATE}      BuildProperties:\n        Target: node22\n`);
  });

  it("leaves out a fix measured to cost, and one not measured", () => {
    const costly = fixedTemplate(templateWith(TEMPLATE), TEMPLATE, [examinedWith("esbuild-target", measured([-13, -3]))]);
    expect(costly).toEqual({ text: TEMPLATE, applied: [], leftOut: ["Fn: esbuild-target (-8.0 ms: it costs)"] });
    expect(fixedTemplate(templateWith(TEMPLATE), TEMPLATE, [examinedWith("esbuild-target", null)])).toEqual({ text: TEMPLATE, applied: [], leftOut: [] });
  });
});
