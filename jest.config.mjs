// Two projects: unit (no processes, the SDK mocked) and integration (real `sam build`, real
// local AWS over TLS, functions run in fresh Node 22 processes). Tests are TypeScript (.mts),
// run as native ES modules (node --experimental-vm-modules) after esbuild strips the types.
const common = {
  moduleFileExtensions: ["mts", "ts", "mjs", "js", "json"],
  extensionsToTreatAsEsm: [".mts"],
  transform: { "\\.mts$": "<rootDir>/test/support/esbuild-transform.mjs" },
  testEnvironment: "node",
  // Other people's apps, copied whole, and SAM's builds (copies of an app's package.json): names
  // shared between package.json files, which jest's module map would report.
  modulePathIgnorePatterns: ["<rootDir>/test/fixtures/public-functions/", "/\\.aws-sam/"],
};

export default {
  // Integration tests start processes and servers; unit tests finish in milliseconds anyway.
  testTimeout: 120_000,
  projects: [
    { ...common, displayName: "unit", testMatch: ["<rootDir>/test/unit/**/*.test.mts"] },
    {
      ...common,
      displayName: "integration",
      testMatch: ["<rootDir>/test/integration/**/*.test.mts"],
      globalSetup: "<rootDir>/test/support/sam-build.mts",
    },
  ],
};
