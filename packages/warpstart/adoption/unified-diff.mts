// The diff `npm run doctor -- --fix` prints of the template it edits: jsdiff's, not one of our own.
import { createPatch, FILE_HEADERS_ONLY } from "diff";

/** A unified diff (`diff -u`, 3 lines of context) of `before` and `after`, both labelled `label`; "" if they are the same. */
export function unifiedDiff(before: string, after: string, label: string): string {
  // jsdiff still writes the --- / +++ lines when nothing changed; FILE_HEADERS_ONLY drops its Index: and ==== lines.
  return before === after ? "" : createPatch(label, before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
}
