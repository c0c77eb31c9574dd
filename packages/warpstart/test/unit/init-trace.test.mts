// parseInitTrace: what lab/init-trace-preload.mjs writes (marks, then the handler's moduleLoadList
// entries), with the environment's spawn and first request for an event, made into INIT's
// phases and the public names of the builtins the handler's import loaded.
import { HEAVY_BUILTINS, parseInitTrace } from "../../lab/init-trace.mts";

const MS = 1_000_000n;
/** Spawned at 1000 ms, asked for its first event at 1125 ms. */
const environment = { spawnedAt: 1000n * MS, readyAt: 1125n * MS };
const trace = (lines: string[]) => `${lines.join("\n")}\n`;
const loaded = (...ids: string[]) => ids.map((id) => `loaded NativeModule ${id}`);

test("INIT splits at the handler's import, its first AWS request and its end; the phases add up to Init Duration", () => {
  const output = trace([`handler-start ${1070n * MS}`, `aws-request ${1090n * MS}`, `handler-end ${1120n * MS}`]);
  const { phases } = parseInitTrace(output, environment);
  expect(phases).toEqual({ beforeHandlerMs: 70, loadingCodeMs: 20, topLevelWorkMs: 30, afterHandlerMs: 5 });
  expect(phases.beforeHandlerMs + phases.loadingCodeMs + phases.topLevelWorkMs + phases.afterHandlerMs).toBe(125);
});

test("without an AWS request, loading the code lasts until the import ends and there is no top-level work", () => {
  const output = trace([`handler-start ${1070n * MS}`, `handler-end ${1110n * MS}`]);
  expect(parseInitTrace(output, environment).phases).toEqual({ beforeHandlerMs: 70, loadingCodeMs: 40, topLevelWorkMs: 0, afterHandlerMs: 15 });
});

test("keeps sub-millisecond precision", () => {
  const output = trace([`handler-start ${1070n * MS + 250_000n}`, `handler-end ${1110n * MS}`]);
  expect(parseInitTrace(output, environment).phases).toMatchObject({ beforeHandlerMs: 70.25, loadingCodeMs: 39.75 });
});

test("names builtins as users import them, in load order, once each; bindings, internals and the underscored parts of public modules are left out", () => {
  const output = trace([
    `handler-start ${1070n * MS}`,
    `handler-end ${1110n * MS}`,
    "loaded Internal Binding zlib",
    ...loaded("internal/streams/readable", "stream", "zlib", "_http_agent", "_tls_wrap", "https", "fs/promises"),
    ...loaded("internal/crypto/webcrypto", "internal/webstreams/util", "internal/webstreams/readablestream", "internal/deps/undici/undici", "stream"),
  ]);
  expect(parseInitTrace(output, environment).builtins).toEqual([
    "node:stream",
    "node:zlib",
    "node:https",
    "node:fs/promises",
    "webcrypto",
    "web streams",
    "undici",
  ]);
});

test("a handler that loads no builtin has none", () => {
  const output = trace([
    `handler-start ${1070n * MS}`,
    `handler-end ${1071n * MS}`,
    "loaded Internal Binding fs_dir",
    ...loaded("internal/modules/esm/translators"),
  ]);
  expect(parseInitTrace(output, environment).builtins).toEqual([]);
});

test("HEAVY_BUILTINS are the names the modules of those builtins get", () => {
  const heavy = loaded(
    "http2",
    "internal/deps/undici/undici",
    "zlib",
    "internal/webstreams/readablestream",
    "internal/crypto/webcrypto",
    "worker_threads",
    "fs/promises",
  );
  const output = trace([`handler-start ${1070n * MS}`, `handler-end ${1110n * MS}`, ...heavy]);
  expect(parseInitTrace(output, environment).builtins).toEqual(HEAVY_BUILTINS);
});

test("a trace that never saw the handler's import is an error, not zeros", () => {
  expect(() => parseInitTrace("", environment)).toThrow(/no import of the handler/);
  expect(() => parseInitTrace(trace([`handler-start ${1070n * MS}`]), environment)).toThrow(/no import of the handler/);
});
