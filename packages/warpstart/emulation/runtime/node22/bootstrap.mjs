// nodejs22.x's /var/runtime/index.mjs, as far as the lab needs it: the runtime interface client of
// the line Lambda's on-demand nodejs18.x to nodejs22.x runtimes run (3.x: callback handlers, the
// context's callbackWaitsForEmptyEventLoop, succeed, fail and done), started on the task root and
// the handler Lambda's bootstrap gives it.
import { run } from "aws-lambda-ric";

await run(process.env.LAMBDA_TASK_ROOT, process.env._HANDLER);
