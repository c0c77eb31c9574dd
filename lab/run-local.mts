// The main job, for now (`npm run local`): sam build, start the local STS, run every built
// function once in a fresh Node 22 process with its route's event from events/, print what
// each answered and how long it took to be ready, stop everything started.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EVENTS_DIR, BUILD_DIR } from "./paths.mts";
import { runOnce } from "./run-once.mts";
import { samBuild } from "./sam.mts";
import { startLocalSts } from "./sts/local-sts.mts";
import { templateFunctions } from "./template.mts";

const { values } = parseArgs({ options: { "skip-build": { type: "boolean", default: false } } });

if (!values["skip-build"]) {
  console.log("== sam build");
  await samBuild({ quiet: true });
}
const functions = templateFunctions(join(BUILD_DIR, "template.yaml"));

console.log("== starting the local STS (moto over TLS)");
const sts = await startLocalSts();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void sts.stop().then(() => process.exit(130)));
console.log(`   ${sts.endpoint}`);

let failures = 0;
const rows: string[] = [];
try {
  for (const fn of functions) {
    const eventFile = join(EVENTS_DIR, `${(fn.httpPath ?? `/${fn.logicalId}`).slice(1).toLowerCase()}.json`);
    console.log(`\n== ${fn.logicalId}: ${fn.handler}, ${fn.memoryMb} MB, event ${eventFile}`);
    const result = await runOnce(
      { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb },
      eventFile,
      { stsEndpoint: sts.endpoint, caFile: sts.caFile },
    );
    if (result.ok) {
      console.log(`   ready after ${result.readyMs.toFixed(1)} ms (process start to handler module initialized)`);
      console.log(`   status ${result.response.statusCode}: ${JSON.stringify(JSON.parse(result.response.body), null, 2).replaceAll("\n", "\n   ")}`);
      rows.push(`${fn.logicalId.padEnd(12)} ${result.readyMs.toFixed(1).padStart(8)} ms`);
    } else {
      failures++;
      console.log(`   FAILED ${result.errorType}: ${result.errorMessage}`);
      rows.push(`${fn.logicalId.padEnd(12)}   failed`);
    }
  }
} finally {
  await sts.stop();
}
console.log(`\n== time to ready (one run each; the bench measures distributions)\n${rows.join("\n")}`);
process.exitCode = failures ? 1 : 0;
