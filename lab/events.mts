// The HTTP API (payload format 2.0) event functions get: events/http-api.json, the one sample
// event (`sam local invoke -e` takes it too), made into the event of any route and query string.
// What the bench, the keep-alive run, `npm run invoke` and the tests send.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENTS_DIR } from "../core/paths.mts";

export const SAMPLE_EVENT = join(EVENTS_DIR, "http-api.json");

/** The sample event as API Gateway would send it for GET `path` with `query` (e.g. { calls: "10" }). */
export function routeEvent(path: string, query: Record<string, string> = {}): Record<string, unknown> {
  const event = JSON.parse(readFileSync(SAMPLE_EVENT, "utf8")) as Record<string, unknown> & { requestContext: { http: Record<string, unknown> } };
  const routeKey = `GET ${path}`;
  const rawQueryString = new URLSearchParams(query).toString();
  return {
    ...event,
    routeKey,
    rawPath: path,
    rawQueryString,
    ...(rawQueryString ? { queryStringParameters: query } : {}),
    requestContext: { ...event.requestContext, routeKey, http: { ...event.requestContext.http, path } },
  };
}

/** A template function's event: its HTTP API route's (with `query`), or {} for a function without one. */
export function functionEvent(fn: { httpPath: string | null }, query: Record<string, string> = {}): Record<string, unknown> {
  return fn.httpPath ? routeEvent(fn.httpPath, query) : { ...query };
}
