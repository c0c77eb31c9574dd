// The demo's functions in template.yaml, by logical id: the one place the tests name them. The
// demo's conventions (no Environment, a GET route named after the function, arm64 at 512 MB, a log
// group, outputs, a load-test scenario) are checked on these. A function a user adds is theirs:
// it is held only to what SAM and the build need (test/support/template-checks.mts).
export const DEMO_FUNCTIONS: readonly string[] = ["Raw", "Bundled", "Optimized", "Warp", "Floor", "Cjs", "NoKeepAlive", "Hello"];
