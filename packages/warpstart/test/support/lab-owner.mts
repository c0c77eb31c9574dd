// A lab owner as `npm run lab` is one (started the same way, ending on the same signals), on the
// emulator's fixture functions, for the tests that end it the hard way. Prints one JSON line with
// its endpoints once it serves; SIGUSR2 makes it die of an uncaught exception.
import { join } from "node:path";
import { onEndingSignal } from "../../core/processes.mts";
import { startLab } from "../../lab/lab.mts";

const lab = await startLab({ template: join(import.meta.dirname, "../fixtures/lab/template.yaml"), parameterOverrides: {} });
onEndingSignal(() => lab.stop(), 0);
process.on("SIGUSR2", () => {
  setImmediate(() => {
    throw new Error("the lab's owner crashed");
  });
});
console.log(JSON.stringify({ endpoint: lab.endpoint, apiUrl: lab.apiUrl, awsEndpoint: lab.aws.endpoint }));
