// Every `npm run <script>` the README shows answers `npm run <script> -- --help` with its usage and
// exit 0: the commands a reader copies exist and parse their flags. --help stops each command
// before it builds, starts a lab or touches AWS; scripts/with-tools.sh still runs setup.sh first,
// which has nothing left to install once `npm test` is running.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_ROOT } from "../support/demo.mts";

// The same reading as test/unit/readme.test.mts: `npm run <script>` anywhere in the README; but the
// suite's own (npm run test:slow), which is jest's command line, not one of the project's.
const readme = readFileSync(join(DEMO_ROOT, "README.md"), "utf8");
const scriptsShown = [...new Set([...readme.matchAll(/\bnpm run ([a-z][\w:-]*)/g)].map((match) => match[1]!))]
  .filter((script) => !script.startsWith("test:"))
  .sort();

// Were setup.sh to find something missing, it fails here instead of downloading it: npm offline,
// pip without an index, and every other HTTP client sent to a closed local port.
const OFFLINE = {
  npm_config_offline: "true",
  PIP_NO_INDEX: "1",
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
};

it("the README shows the commands a reader runs", () => {
  expect(scriptsShown).toEqual(expect.arrayContaining(["bench", "invoke", "doctor"]));
});

it.each(scriptsShown)("npm run %s -- --help prints its usage and exits 0", (script) => {
  const run = spawnSync("npm", ["run", script, "--", "--help"], {
    cwd: DEMO_ROOT,
    encoding: "utf8",
    env: { ...process.env, ...OFFLINE },
    timeout: 60_000,
  });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.not.stringContaining("error") });
  expect(run.stdout).toMatch(/^usage: warpstart [a-z][\w:-]* /m);
});
