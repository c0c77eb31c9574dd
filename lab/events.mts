// The sample HTTP API events in events/, one per route of template.yaml (events/optimized.json
// for GET /optimized): what the bench, the keep-alive run, `sam local invoke -e` and the tests send.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENTS_DIR } from "./paths.mts";

/** The event file of a variant (its logical id or route, any case). */
export const eventFile = (variant: string) => join(EVENTS_DIR, `${variant.toLowerCase()}.json`);

/** A variant's event; with `calls`, asking for that many extra STS calls in the invoke (?calls=K, src/functions/identity). */
export function variantEvent(variant: string, calls?: number): Record<string, unknown> {
  const event = JSON.parse(readFileSync(eventFile(variant), "utf8")) as Record<string, unknown>;
  return calls === undefined ? event : { ...event, rawQueryString: `calls=${calls}`, queryStringParameters: { calls: String(calls) } };
}
