// The package's tests, run from the repository's root (the demo app is what many of them build and
// run, as a user runs warpstart in an app's folder), in three projects: unit (no processes, the SDK mocked), integration (real `sam build`, real local
// AWS over TLS, functions run in fresh Node 22 processes: each claim proved once) and slow (the
// breadth: the corpus in every profile, the doctor on every app shape, the runtime matrix, the load
// test). `npm test` at the repository's root runs unit and integration, `npm run test:slow` slow. Tests are TypeScript
// (.mts), run as native ES modules (node --experimental-vm-modules) after esbuild strips the types.
import { availableParallelism } from "node:os";
import { join } from "node:path";

// Builds are kept by what goes into them (builder/build-cache.mts): the same function in the same
// profile is built once, whichever test file or `sam build` asks for it first, and again only when
// its inputs change. Set here, before any worker or child starts, so all of them share it.
process.env.WARPSTART_BUILD_CACHE ??= join(import.meta.dirname, ".lab/build-cache");

const common = {
  // Jest's own cache in the project, not at a fixed path of the shared /tmp.
  cacheDirectory: join(import.meta.dirname, ".lab/jest-cache"),
  moduleFileExtensions: ["mts", "ts", "mjs", "js", "json"],
  extensionsToTreatAsEsm: [".mts"],
  transform: { "\\.mts$": "<rootDir>/test/support/esbuild-transform.mjs" },
  testEnvironment: "node",
  // Fixture apps and SAM's builds (copies of an app's package.json): names shared between package.json files, which jest's module map would report.
  modulePathIgnorePatterns: ["<rootDir>/test/fixtures/", "/\\.aws-sam/"],
};

/** The projects that start processes: SAM's build of the project's apps first (test/support/sam-build.mts). */
const withProcesses = { ...common, globalSetup: "<rootDir>/test/support/sam-build.mts" };

export default {
  // Integration tests start processes and servers; unit tests finish in milliseconds anyway.
  testTimeout: 120_000,
  // Two files at a time even on 2 cores (jest's default there is one): most of an integration
  // test's time is spent waiting on the processes it started.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Each file's duration is printed at the end; one past its project's budget (seconds) is marked.
  reporters: ["default", ["<rootDir>/test/support/run-report.mjs", { budgets: { unit: 10, integration: 150, slow: 420 } }]],
  projects: [
    { ...common, displayName: "unit", testMatch: ["<rootDir>/test/unit/**/*.test.mts"] },
    { ...withProcesses, displayName: "integration", testMatch: ["<rootDir>/test/integration/**/*.test.mts"] },
    { ...withProcesses, displayName: "slow", testMatch: ["<rootDir>/test/slow/**/*.test.mts"] },
  ],
};
