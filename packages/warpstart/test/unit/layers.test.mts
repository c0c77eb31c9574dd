// The layers of the package, enforced: every edge between its folders (an import, import(), export
// from, require, or a string naming another folder's file, e.g. join(PACKAGE_ROOT, "lab/...")) must
// point down the direction declared here, once, and no import leaves the package (its tests alone
// read the demo app, by path). The code shipped to Lambda (src/) shares one module with the
// tooling, src/contract.mts.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { PACKAGE_ROOT } from "../../core/paths.mts";

/** What the code shipped to Lambda and the tooling share: a layer of its own, below every other. */
const CONTRACT = "src/contract.mts";
const BELOW_THE_TOOLS = ["contract", "core", "emulation", "measure", "builder", "lab"];

/**
 * Bottom up, what each layer's code may use besides its own folder:
 * contract ← src; contract ← core (utilities) ← emulation (a function's environment, the local
 * AWS, the runtime stand-in), measure (the forced-cold-start loop, its statistics) ← builder ←
 * lab ← bench, doctor, load_test; doctor ← adoption (what adopt and the doctor's --fix write into
 * an app) ← cli (the `warpstart` program, which warpstart.mjs runs: one module per command, named
 * as the user types it).
 * test/, scripts/ and the package's root files may use anything.
 */
const MAY_USE: Record<string, readonly string[] | "anything"> = {
  contract: [],
  src: ["contract"],
  core: ["contract"],
  emulation: ["contract", "core"],
  measure: ["contract", "core"],
  builder: ["contract", "core", "emulation"],
  lab: ["contract", "core", "emulation", "builder"],
  bench: BELOW_THE_TOOLS,
  doctor: BELOW_THE_TOOLS,
  load_test: BELOW_THE_TOOLS,
  adoption: [...BELOW_THE_TOOLS, "doctor"],
  cli: [...BELOW_THE_TOOLS, "bench", "doctor", "load_test", "adoption"],
  test: "anything",
  scripts: "anything",
  ".": "anything",
};

/**
 * Folders a layer may name by path but not import: the builder builds src/'s entry points (the
 * chunk loader, the early lookup, the runtime client); core installs the tools a run needs only sometimes
 * with scripts/setup.sh's parts (core/tools.mts); warp:pin runs scripts/setup.sh once it has pinned Node;
 * the build-time harness pins an app's lockfile with scripts/pin-dependencies.mjs.
 */
const MAY_NAME: Record<string, readonly string[]> = { builder: ["src"], core: ["scripts"], cli: ["scripts"], bench: ["scripts"] };

/** Data, not code: any layer may name what is here. */
const DATA = ["published/", "tools/"];

const CODE = new Set([".mts", ".mjs", ".cts", ".cjs", ".ts", ".js"]);
/** Not the project's code: installed packages, pinned tools, SAM's builds, other people's apps. */
const NOT_SCANNED = new Set(["node_modules", "tools", ".aws-sam", "test/fixtures"]);

function projectFiles(dir = PACKAGE_ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const name = relative(PACKAGE_ROOT, path).split(sep).join("/");
    if (entry.isDirectory()) return entry.name.startsWith(".") || NOT_SCANNED.has(entry.name) || NOT_SCANNED.has(name) ? [] : projectFiles(path);
    return CODE.has(extname(entry.name)) ? [name] : [];
  });
}

/** The layer of a project path: the contract, else its top folder ("." for the root's files). */
function layerOf(path: string): string {
  if (path === CONTRACT) return "contract";
  return path.includes("/") ? path.split("/")[0]! : ".";
}

interface Edge {
  file: string;
  /** The project path it reaches, relative to the root. */
  target: string;
  /** "types": an import of types only (`import type`), which the compiled code does not load. */
  kind: "imports" | "types" | "names";
}

/** A string that reads as a path: no spaces, no URL, at least one folder. */
const PATH_LIKE = /^[\w@.-]+(\/[\w@.*-]*)+$/;

/** The package path a specifier or path string reaches from `file` ("../…" outside the package), or null (a package, a builtin). */
function targetOf(file: string, text: string, topFolders: Set<string>): string | null {
  let absolute: string;
  if (text.startsWith("./") || text.startsWith("../")) absolute = resolve(PACKAGE_ROOT, dirname(file), text);
  else if (PATH_LIKE.test(text) && topFolders.has(text.split("/")[0]!)) absolute = resolve(PACKAGE_ROOT, text);
  else return null;
  const path = relative(PACKAGE_ROOT, absolute).split(sep).join("/");
  return path === "" ? null : path;
}

/** Calls that build a path from parts: join(ROOT, "lab", "x.mts"), path.resolve(...). */
const JOINS = new Set(["join", "resolve"]);

/**
 * Every edge of one file: its imports (static, dynamic, require, export from) and the project paths
 * its strings, template literals and join()/resolve() calls name.
 */
function edgesOf(file: string, text: string, topFolders: Set<string>): Edge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  const specifiers = new Set<ts.Node>();
  /** The path a node spells, "*" for each part known only at run time; marks what it reads, to count it once. */
  const pathOf = (node: ts.Node): string | undefined => {
    let path: string;
    if (ts.isStringLiteralLike(node)) path = node.text;
    else if (ts.isTemplateExpression(node)) path = node.head.text + node.templateSpans.map((span) => `*${span.literal.text}`).join("");
    else if (ts.isCallExpression(node) && JOINS.has((ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression).getText(source)))
      path = node.arguments.map((argument) => pathOf(argument) ?? "*").join("/");
    else return undefined;
    specifiers.add(node);
    // A run-time base (`${PACKAGE_ROOT}/`, join(ROOT, ...)) is where the project's paths start. Not
    // for a plain string: "*/x" there is a glob.
    return ts.isStringLiteralLike(node) ? path : path.replace(/^(\*\/)+/, "");
  };
  const add = (node: ts.Node, kind: Edge["kind"]) => {
    if (specifiers.has(node)) return;
    const path = pathOf(node);
    const target = path === undefined ? null : targetOf(file, path, topFolders);
    if (target !== null) edges.push({ file, target, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly) add(node.moduleSpecifier, "types");
    else if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) add(node.moduleSpecifier, "imports");
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, "imports");
    else if (ts.isCallExpression(node) && node.arguments[0]) {
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === "require") ||
        (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "require");
      add(loads ? node.arguments[0] : node, loads ? "imports" : "names");
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node)) add(node, "names");
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Why an edge goes against the declared direction, or null when it does not. */
function violation({ file, target, kind }: Edge): string | null {
  const from = layerOf(file);
  const to = layerOf(target);
  const allowed = MAY_USE[from];
  // Only a layer's code is a target: not the root's files, installed packages or SAM's builds.
  if (target.startsWith("../")) return kind !== "names" && from !== "test" ? `${file} → ${target}: outside the package` : null;
  const layer = to !== "." && to in MAY_USE;
  if (!layer || from === to || allowed === "anything" || DATA.some((data) => target === data || target.startsWith(data))) return null;
  if (allowed === undefined) return `${file} → ${target}: ${from}/ has no place in the layers (declare it in test/unit/layers.test.mts)`;
  if (allowed.includes(to)) return null;
  if (MAY_NAME[from]?.includes(to)) return kind === "names" ? null : `${file} → ${target}: ${from} may name ${to}'s files (to build them), not import them`;
  return `${file} → ${target}: ${from} may not depend on ${to}`;
}

const topFolders = new Set(readdirSync(PACKAGE_ROOT, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [entry.name] : [])));
const files = projectFiles();
const edges = files.flatMap((file) => edgesOf(file, readFileSync(join(PACKAGE_ROOT, file), "utf8"), topFolders));

it("the scanner sees every kind of edge: import, export from, import(), require, path strings, template literals and join()", () => {
  const text = [
    'import { a } from "../lab/a.mts";',
    'export * from "../lab/b.mts";',
    'await import("../lab/c.mts");',
    'require("../lab/d.cjs");',
    'join(PACKAGE_ROOT, "lab/runtime");',
    'join(import.meta.dirname, "../lab/e.mjs");',
    `\`\${PACKAGE_ROOT}/lab/f.mts\`;`,
    `\`lab/\${name}.mts\`;`,
    'join(ROOT, "lab", "g.mts");',
    'path.resolve(import.meta.dirname, "..", "lab", "h.mts");',
    `await import(\`../lab/\${name}.mjs\`);`,
    'const notAPath = "lab is a word"; import "node:fs"; import "yaml";',
    `const notPaths = [\`\${count} lab/\${name}\`, "*/lab/**", lines.join("\\n"), join(ROOT, "lab")];`,
  ].join("\n");
  expect(edgesOf("builder/x.mts", text, topFolders).map(({ target, kind }) => `${kind} ${target}`)).toEqual([
    "imports lab/a.mts",
    "imports lab/b.mts",
    "imports lab/c.mts",
    "imports lab/d.cjs",
    "names lab/runtime",
    "names lab/e.mjs",
    "names lab/f.mts",
    "names lab/*.mts",
    "names lab/g.mts",
    "names lab/h.mts",
    "imports lab/*.mjs",
  ]);
  // And it reads the project: the lab's paths come from core.
  expect(edges).toContainEqual({ file: "lab/lab.mts", target: "core/paths.mts", kind: "imports" });
});

it("every edge between the project's folders points down the declared layers", () => {
  expect(edges.map(violation).filter((message) => message !== null)).toEqual([]);
});

it("the builder runs INIT through core/init-services.mts, which the local AWS implements: nothing in builder/ imports the local AWS", () => {
  expect(edges).toContainEqual({ file: "builder/code-cache.mts", target: "core/init-services.mts", kind: "types" });
  expect(edges.filter(({ file, target, kind }) => file.startsWith("builder/") && target.startsWith("emulation/local-aws/") && kind !== "names")).toEqual([]);
});

it("every folder with code has its place in the layers", () => {
  expect([...new Set(files.map(layerOf))].filter((layer) => !(layer in MAY_USE))).toEqual([]);
});
