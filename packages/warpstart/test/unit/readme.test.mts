// README.md and docs/ are the newcomer's guide: every relative link and #anchor in them resolves
// inside the repository, every `npm run <script>` the README shows is a script of package.json,
// and every path its layout table names exists. Running those scripts is
// test/integration/readme-commands.test.mts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { DEMO_ROOT } from "../support/demo.mts";

const README = join(DEMO_ROOT, "README.md");

/** README.md and every Markdown file under docs/, the pages a reader follows links between. */
function guidePages(): string[] {
  const docs = readdirSync(join(DEMO_ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(DEMO_ROOT, "docs", name));
  return [README, ...docs.sort()];
}

/** The lines a reader sees as prose: fenced code blocks hold commands and output, not links or headings. */
function proseLines(markdown: string): string[] {
  let inFence = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      return false;
    }
    return !inFence;
  });
}

/**
 * The anchor GitHub gives a heading (github-slugger's rule): its text lowercased, every character
 * dropped but letters, marks, decimal and letter numbers, connector punctuation (`_`), `-` and
 * spaces, and each space made a `-`.
 */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link or image reads as its text
    .replace(/<[^>]+>/g, "") // inline HTML renders no text of its own
    .replace(/[`*]/g, "") // code and emphasis markers are not text
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\p{Alphabetic}\- ]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs (a repeated one gets -1, -2... as on GitHub) and explicit <a id>/<a name>. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1]!);
      const times = seen.get(slug) ?? 0;
      seen.set(slug, times + 1);
      anchors.add(times === 0 ? slug : `${slug}-${times}`);
    }
    for (const explicit of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(explicit[1]!);
  }
  return anchors;
}

/** The targets of a page's inline links and images and its reference definitions, outside code. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  let previous = "";
  for (const line of proseLines(markdown)) {
    // A code span shows a link's syntax rather than making one; its place is kept, so link text with code still matches.
    const prose = line.replace(/`[^`]*`/g, "code");
    for (const link of prose.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(link[1]!);
    // A definition cannot interrupt a paragraph: "[1.70, 1.79]: Bun..." inside one is prose.
    const definition = previous.trim() === "" ? /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(prose) : null;
    if (definition) targets.push(definition[1]!);
    previous = line;
  }
  return targets;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with each relative link of a page that sits at `page`: a missing file, an anchor no heading has, a way out of the repository. */
function brokenLinks(page: string, markdown: string): string[] {
  const problems: string[] = [];
  const from = relative(DEMO_ROOT, page);
  for (const target of linkTargets(markdown).filter((target) => !isExternal(target))) {
    const [path = "", anchor] = target.split("#", 2);
    const file = path === "" ? page : resolve(dirname(page), decodeURIComponent(path));
    if (file !== DEMO_ROOT && !file.startsWith(DEMO_ROOT + sep)) problems.push(`${from}: ${target}: leads out of the repository`);
    else if (!existsSync(file)) problems.push(`${from}: ${target}: no such file`);
    else if (anchor !== undefined) {
      if (statSync(file).isDirectory() || !file.endsWith(".md")) problems.push(`${from}: ${target}: an anchor into a file that is not Markdown`);
      else if (!anchorsOf(file === page ? markdown : readFileSync(file, "utf8")).has(anchor)) problems.push(`${from}: ${target}: no heading has that anchor`);
    }
  }
  return problems;
}

/** The scripts a page tells the reader to run: `npm run <script>`, and `npm test`. */
function npmScriptsShown(markdown: string): string[] {
  const scripts = [...markdown.matchAll(/\bnpm run ([a-z][\w:-]*)/g)].map((match) => match[1]!);
  if (/\bnpm test\b/.test(markdown)) scripts.push("test");
  return [...new Set(scripts)].sort();
}

/** The paths in code spans of the first column of the table under `## Layout`. */
function layoutPaths(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Layout\n")) ?? "";
  const rows = section.split("\n").filter((line) => line.startsWith("|"));
  // The first two rows are the header and its separator.
  return rows.slice(2).flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1]!));
}

describe("githubSlug gives the anchors GitHub gives", () => {
  it.each([
    ["Your function, step by step", "your-function-step-by-step"],
    ["Where the milliseconds go: `npm run phases`", "where-the-milliseconds-go-npm-run-phases"],
    ["Lambda's own data first", "lambdas-own-data-first"],
    ["The runtime matrix: Node 22, Node 24, Deno and Bun", "the-runtime-matrix-node-22-node-24-deno-and-bun"],
    ["Keep-alive beside the articles", "keep-alive-beside-the-articles"],
    ["Warp ≤ 1.10 × Floor – why not", "warp--110--floor--why-not"],
    ["Node², Ⅻ and ½", "node-ⅻ-and-"],
    ["A cache from a **partial** INIT", "a-cache-from-a-partial-init"],
    ["load_test/ and [the doctor](docs/doctor.md)", "load_test-and-the-doctor"],
  ])("%s → #%s", (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe("brokenLinks finds what a reader would stumble on", () => {
  const page = README;

  it("accepts a file, a heading's anchor in it, an anchor of the page itself, an explicit <a id> and external links", () => {
    const markdown = [
      "## Two commands",
      "[warp](docs/warp.md#tried-and-dropped), [up](#two-commands), [check](docs/doctor.md#runtime-sdk)",
      "![chart](docs/bench-chart.svg) [moto](https://github.com/getmoto/moto) [folder](docs/)",
    ].join("\n");
    expect(brokenLinks(page, markdown)).toEqual([]);
  });

  it("reports a missing file, an anchor no heading has, an anchor into a folder and a way out of the repository", () => {
    const markdown = [
      "[gone](docs/nowhere.md) [stale](docs/warp.md#the-seeds) [self](#no-such-section)",
      "[folder](docs/#why) [out](../elsewhere/README.md)",
    ].join("\n");
    expect(brokenLinks(page, markdown)).toEqual([
      "README.md: docs/nowhere.md: no such file",
      "README.md: docs/warp.md#the-seeds: no heading has that anchor",
      "README.md: #no-such-section: no heading has that anchor",
      "README.md: docs/#why: an anchor into a file that is not Markdown",
      "README.md: ../elsewhere/README.md: leads out of the repository",
    ]);
  });

  it("reads links in link text with code, and none in code spans or fenced blocks", () => {
    const markdown = ["[`patches/`](nowhere/)", "`[not a link](nowhere.md)`", "```sh", "[nor this](nowhere.md)", "```"].join("\n");
    expect(brokenLinks(page, markdown)).toEqual(["README.md: nowhere/: no such file"]);
  });

  it("reads a reference definition that opens a paragraph, not brackets and a colon inside one", () => {
    const markdown = ["", "[moved]: docs/nowhere.md", "", "Warp 1.77", "[1.70, 1.79]: Bun cannot use it"].join("\n");
    expect(brokenLinks(page, markdown)).toEqual(["README.md: docs/nowhere.md: no such file"]);
  });

  it("counts a repeated heading's anchors as GitHub does", () => {
    const markdown = ["## Runs", "## Runs", "[first](#runs) [second](#runs-1) [third](#runs-2)"].join("\n");
    expect(brokenLinks(page, markdown)).toEqual(["README.md: #runs-2: no heading has that anchor"]);
  });
});

it.each(guidePages().map((page) => [relative(DEMO_ROOT, page), page]))("every relative link and anchor of %s resolves", (_name, page) => {
  expect(brokenLinks(page, readFileSync(page, "utf8"))).toEqual([]);
});

it("every npm script the README shows is a script of package.json", () => {
  const { scripts } = JSON.parse(readFileSync(join(DEMO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const shown = npmScriptsShown(readFileSync(README, "utf8"));
  expect(shown).toEqual(expect.arrayContaining(["bench", "test"]));
  expect(shown.filter((script) => !(script in scripts))).toEqual([]);
});

it("npmScriptsShown reads `npm run X` anywhere, code included, and `npm test`", () => {
  expect(npmScriptsShown("run `npm run bench -- --rounds 5`, then\n```sh\nnpm run lab\nnpm test\n```\nnpm runs its hooks")).toEqual(["bench", "lab", "test"]);
});

it("every path the README's layout table names exists", () => {
  const paths = layoutPaths(readFileSync(README, "utf8"));
  expect(paths.length).toBeGreaterThanOrEqual(10);
  expect(paths.filter((path) => !existsSync(join(DEMO_ROOT, path)))).toEqual([]);
});

it("layoutPaths reads the first column of the Layout table only", () => {
  const markdown = ["## Layout", "", "| path | what |", "| :-- | :-- |", "| `a/`, `b.txt` | `not/this` |", "| `c/` | x |", "", "## Next", "| `d/` | x |"];
  expect(layoutPaths(markdown.join("\n"))).toEqual(["a/", "b.txt", "c/"]);
});
