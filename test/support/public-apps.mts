// The public SAM apps of test/fixtures/public-functions, put back together as their owners publish
// them (originals/<app>/template.yaml beside src/<app>/**), so the doctor can be tried on what
// `sam build` makes of them with their own package.json. Tests never reach the network:
// OFFLINE_NPM_ENV makes the `npm install` SAM runs read only the project's npm cache, which
// scripts/setup.sh fills with these apps' dependency trees.
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../core/paths.mts";

const FIXTURE = join(PROJECT_ROOT, "test/fixtures/public-functions");

/**
 * The apps the doctor is tried on, each `sam build`-able offline from tools/npm-cache (scripts/setup.sh
 * fills it from this list). Left out: sam-web and dynamodb-eventbridge, whose src/ lacks code their
 * templates name (web's get-by-id handler, the subscribe/ functions); powertools-example-app, whose package.json Node 22's npm (10.9.9) cannot
 * install (npm/cli#8261: "Cannot read properties of null (reading 'edgesOut')", vitest's peers).
 */
export const PUBLIC_APPS = [
  "sam-hello",
  "sam-hello-ts",
  "sam-hello-ts-pt",
  "sam-hello-durable-ts",
  "sam-s3",
  "sam-sqs",
  "sam-cw-event",
  "sam-step-func",
  "sam-response-streaming",
  "sam-nodejs14-s3",
  "sqs-lambda-ddb-sam-ts",
  "s3-lambda-resizing-node",
] as const;

/** Copies the app into `into/<name>/` and returns its template.yaml. */
export function assemblePublicApp(name: string, into: string): string {
  const app = join(into, name);
  mkdirSync(app, { recursive: true });
  cpSync(join(FIXTURE, "originals", name, "template.yaml"), join(app, "template.yaml"));
  cpSync(join(FIXTURE, "src", name), app, { recursive: true });
  return join(app, "template.yaml");
}

/**
 * npm reads only tools/npm-cache: `offline` answers every request from the cache or fails with
 * ENOTCACHED, and the proxy (a closed local port) makes any request that would still leave fail at
 * once. The registry stays the one setup filled the cache from: npm keys cached metadata by its URL.
 */
export const OFFLINE_NPM_ENV: Record<string, string> = {
  npm_config_cache: join(PROJECT_ROOT, "tools/npm-cache"),
  npm_config_offline: "true",
  npm_config_proxy: "http://127.0.0.1:9",
  npm_config_https_proxy: "http://127.0.0.1:9",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
