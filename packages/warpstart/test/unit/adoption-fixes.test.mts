// --fix (adoption/fixes.mts): which fixes it writes into the template; and the guards of the
// writer it shares with adopt (adoption/write.mts): a template changed since it was read, or
// read-only, is left as it is, with a message that says so.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fixedTemplate } from "../../adoption/fixes.mts";
import { writeRewrites } from "../../adoption/write.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate, type TemplateFunction } from "../../core/template.mts";
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
  writeRewrites([{ file, was: READ, is: FIXED }], "--fix");
  expect(readFileSync(file, "utf8")).toBe(FIXED);
});

it("a template changed since the doctor read it: nothing written, and why", () => {
  const file = templateWith("Resources: { Edited: {} }\n");
  expect(() => writeRewrites([{ file, was: READ, is: FIXED }], "--fix")).toThrow(
    `${file} changed since it was read: nothing written; the diff above is what --fix would change; run the doctor again on it as it is now`,
  );
  expect(readFileSync(file, "utf8")).toBe("Resources: { Edited: {} }\n");
});

it("a read-only template, even to root: nothing written, and its mode", () => {
  const file = templateWith(READ);
  chmodSync(file, 0o440);
  expect(() => writeRewrites([{ file, was: READ, is: FIXED }], "--fix")).toThrow(
    `${file} is read-only (mode 0440): nothing written; the diff above is what --fix would change`,
  );
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
  const examinedWith = (id: CheckId, cost: MeasuredCost | null): Examined & { source: TemplateFunction } => {
    const fn = built({ pipeline: false, fn: { logicalId: "Fn", buildMethod: "esbuild" } });
    const report = examine(fn);
    report.findings = [{ ...finding(id, "found"), measured: cost, whyNotMeasured: cost ? null : "not built" }];
    return { built: fn, report, source: fn.fn };
  };

  it("a fix the lab built and measured, in the function's BuildProperties", () => {
    const fixed = fixedTemplate(templateWith(TEMPLATE), TEMPLATE, [examinedWith("esbuild-target", measured([1, 9]))]);
    expect(fixed.applied).toEqual(["Fn: esbuild-target"]);
    expect(fixed.template.is).toBe(`${TEMPLATE}      BuildProperties:\n        Target: node22\n`);
  });

  it("leaves out a fix measured to cost, and one not measured", () => {
    const costly = fixedTemplate(templateWith(TEMPLATE), TEMPLATE, [examinedWith("esbuild-target", measured([-13, -3]))]);
    expect(costly).toMatchObject({
      template: { was: TEMPLATE, is: TEMPLATE },
      makefiles: [],
      applied: [],
      leftOut: ["Fn: esbuild-target (-8.0 ms: it costs)"],
    });
    expect(fixedTemplate(templateWith(TEMPLATE), TEMPLATE, [examinedWith("esbuild-target", null)])).toMatchObject({
      template: { is: TEMPLATE },
      makefiles: [],
      applied: [],
      leftOut: [],
    });
  });

  describe("a profile measured faster than the function as it is", () => {
    /** The adopt fixture's Hello (SAM's npm builder), in a copy of the app, with Warp and Optimized measured: Warp the faster. */
    const examinedApp = (installed: boolean, id = "Hello") => {
      const app = mkdtempSync(join(scratch, "profile-"));
      cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/adopt"), app, { recursive: true });
      if (installed) {
        mkdirSync(join(app, "node_modules"));
        symlinkSync(PACKAGE_ROOT, join(app, "node_modules/warpstart"));
      }
      const templateFile = join(app, "template.yaml");
      const source = readTemplate(templateFile).functions.find((fn) => fn.logicalId === id)!;
      const fn = built({ pipeline: false, fn: source });
      const report = examine(fn);
      report.profiles = [
        { profile: "Optimized", measured: measured([4, 8]), whyNotMeasured: null, note: null },
        { profile: "Warp", measured: measured([20, 30]), whyNotMeasured: null, note: null },
      ];
      return { templateFile, text: readFileSync(templateFile, "utf8"), examined: [{ built: fn, report, source }] };
    };

    it("is written as adopt writes it: BuildMethod makefile, the fastest Profile, a Makefile that includes the package's rule", () => {
      const { templateFile, text, examined } = examinedApp(true);
      const fixed = fixedTemplate(templateFile, text, examined);
      expect(fixed.applied).toEqual(["Hello: Profile Warp (25.0 ms faster)"]);
      expect(fixed.template.is).toContain(
        "      Handler: app.lambdaHandler\n    Metadata:\n      BuildMethod: makefile\n      BuildProperties:\n        Profile: Warp\n        Format: cjs\n",
      );
      expect(fixed.makefiles.map(({ file }) => file)).toEqual([join(dirname(templateFile), "hello/Makefile")]);
      expect(fixed.makefiles[0]!.is).toContain("include $(WARPSTART_MK)");
    });

    it("replaces the build fixes measured for SAM's esbuild build, whose build it replaces", () => {
      const { templateFile, text, examined } = examinedApp(true, "Orders");
      examined[0]!.report.findings = [{ ...finding("esbuild-target", "found"), measured: measured([1, 9]), whyNotMeasured: null }];
      const fixed = fixedTemplate(templateFile, text, examined);
      expect(fixed.applied).toEqual(["Orders: Profile Warp (25.0 ms faster), in place of esbuild-target"]);
      expect(fixed.template.is).not.toContain("Target:");
    });

    it("is left out, saying what to run, where the app has not installed warpstart", () => {
      const { templateFile, text, examined } = examinedApp(false);
      expect(fixedTemplate(templateFile, text, examined)).toMatchObject({
        template: { is: text },
        makefiles: [],
        applied: [],
        leftOut: [
          "Hello: Profile Warp (25.0 ms faster): warpstart is not installed in the app: npm install --save-dev warpstart, then npx warpstart adopt --profile Warp Hello",
        ],
      });
    });
  });
});
