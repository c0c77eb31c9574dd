// nodejs24.x's /var/runtime/index.mjs, as far as the lab needs it: the runtime interface client of
// the line Lambda's nodejs24.x runs (4.x: no callback handlers, as that runtime), which starts itself
// from the task root and handler in its environment once imported.
import "aws-lambda-ric";
