// Jest reporter, after the default one: at the end of a run, how long each test file took, slowest
// first, each file past its project's budget marked (jest.config.mjs declares them: a finding for
// the next change, not a failure, since these machines are shared and noisy), and every test that
// was skipped, by its full name, which says what it needs and how to run it (test/support/needs.mts):
// a skip is counted and shown, never silent.
import { relative } from "node:path";

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export default class RunReport {
  #rootDir;
  #budgets;
  #files = [];
  #skipped = [];

  /** options.budgets: each project's budget for one file, in seconds. */
  constructor(globalConfig, options = {}) {
    this.#rootDir = globalConfig.rootDir;
    this.#budgets = options.budgets ?? {};
  }

  onTestResult(test, result) {
    const project = test.context.config.displayName?.name ?? "";
    this.#files.push({ project, file: relative(this.#rootDir, result.testFilePath), ms: result.perfStats.end - result.perfStats.start });
    for (const each of result.testResults) if (each.status === "pending" || each.status === "skipped") this.#skipped.push(each.fullName);
  }

  onRunComplete() {
    if (this.#files.length === 0) return;
    const lines = ["", "Test files by duration:"];
    const width = Math.max(...this.#files.map(({ file }) => file.length));
    for (const { project, file, ms } of [...this.#files].sort((a, b) => b.ms - a.ms)) {
      const budget = this.#budgets[project];
      const over = budget !== undefined && ms > budget * 1000 ? `  over the ${project} budget of ${budget} s` : "";
      lines.push(`  ${seconds(ms).padStart(8)}  ${file.padEnd(width)}  ${project}${over}`);
    }
    lines.push(`  ${seconds(this.#files.reduce((sum, { ms }) => sum + ms, 0)).padStart(8)}  in all, ${this.#files.length} files`);
    lines.push("", this.#skipped.length === 0 ? "Skipped: none" : `Skipped: ${this.#skipped.length}`);
    for (const name of this.#skipped) lines.push(`  - ${name}`);
    process.stderr.write(`${lines.join("\n")}\n`);
  }
}
