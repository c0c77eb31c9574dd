// The demo's own tests: its handlers' unit tests (test/unit/), the SDK mocked. The package's tests
// are the package's (packages/warpstart/jest.config.mjs). TypeScript ES modules, their types
// stripped by esbuild as the package's tests are.
export default {
  displayName: "demo",
  testMatch: ["<rootDir>/test/unit/**/*.test.mts"],
  cacheDirectory: "<rootDir>/.lab/jest-cache",
  moduleFileExtensions: ["mts", "ts", "mjs", "js", "json"],
  extensionsToTreatAsEsm: [".mts"],
  transform: { "\\.mts$": "<rootDir>/packages/warpstart/test/support/esbuild-transform.mjs" },
  testEnvironment: "node",
  modulePathIgnorePatterns: ["<rootDir>/packages/warpstart/test/fixtures/", "/\\.aws-sam/"],
};
