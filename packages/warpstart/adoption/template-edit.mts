// `npm run doctor -- --fix` writes the build fixes into the user's own template. Only the changed
// properties are rewritten, at their place in the text (the yaml Document says where each node
// starts and ends): a re-dump by the yaml library would move comments, re-indent and restyle.
import { isDeepStrictEqual } from "node:util";
import { Document, isAlias, isMap, isScalar, isSeq, type Node, type Pair, parse, parseDocument, type Scalar, visit, type YAMLMap, YAMLSeq } from "yaml";
import { CFN_TAGS, type TemplateResourceEntry } from "../core/template.mts";

/** One function's resource as the template has it (`before`) and as the fixes would have it (`after`). */
export interface TemplateChange {
  logicalId: string;
  before: TemplateResourceEntry;
  after: TemplateResourceEntry;
}

type Path = string[];
/** One changed leaf: a value to write (a whole subtree where the key is new) or a key to remove. */
type Edit = { path: Path; value: unknown } | { path: Path; remove: true };

class TemplateEditError extends Error {
  override name = "TemplateEditError";
}

/** A layout this editor does not rewrite: the edit is left to the user. */
class Unsupported extends Error {}

const BY_HAND = "make the change by hand";

/** The template's text with each function's resource changed from `before` to `after`, everything else as it was. */
export function editTemplate(text: string, changes: TemplateChange[]): string {
  const seen = new Set<string>();
  for (const { logicalId } of changes) {
    if (seen.has(logicalId)) throw new TemplateEditError(`${logicalId} is changed twice: give one change per function, after every rewrite of it`);
    seen.add(logicalId);
  }
  // A JSON template is valid YAML too, but what is spliced in must stay JSON.
  if (/^\uFEFF?\s*\{/.test(text)) return editJson(text, changes);
  const template = readYaml(text);
  const expected = plainJson(template);
  const doc = documentOf(text);
  const edits = changes.flatMap(({ logicalId, before, after }) => {
    checkResource(template, logicalId, before);
    expected.Resources[logicalId] = plainJson(after);
    return diff(plainJson(before), plainJson(after), ["Resources", logicalId], (path) => isPlainMap(doc.getIn(path, true)));
  });
  let edited = text;
  for (const edit of edits) {
    try {
      edited = applyEdit(edited, edit);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      const what = "remove" in edit ? "delete it" : `set it to ${JSON.stringify(edit.value)}`;
      throw new TemplateEditError(`cannot edit ${edit.path.slice(1).join(".")} in place: ${error.message}; ${BY_HAND}: ${what}`, { cause: error });
    }
  }
  checkEdited(edited, expected);
  return edited;
}

// ---------------------------------------------------------------------------------------------
// Reading and checking

type TemplateJs = { Resources: Record<string, unknown> };

/** The parsed Document (tags kept as written), or the first YAML error with its line. */
function documentOf(text: string): Document.Parsed {
  // The tags are only read here, never resolved: unknown-tag warnings are expected.
  // A repeated key is read as SAM reads it, the last one counting (core/template.mts says so).
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false });
  const [first] = doc.errors;
  if (first) {
    const where = first.linePos ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}` : "";
    const message = first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new TemplateEditError(`the template is not valid YAML${where}: ${message}. Fix it (sam validate --lint shows it too), then run the doctor again`);
  }
  return doc;
}

function readYaml(text: string): TemplateJs {
  documentOf(text);
  const template = parse(text, { customTags: CFN_TAGS, logLevel: "error", uniqueKeys: false }) as Partial<TemplateJs> | null;
  if (!template?.Resources || typeof template.Resources !== "object" || Array.isArray(template.Resources))
    throw new TemplateEditError("the template has no Resources section: it is not a SAM template");
  return template as TemplateJs;
}

function checkResource(template: TemplateJs, logicalId: string, before: TemplateResourceEntry) {
  if (!Object.hasOwn(template.Resources, logicalId))
    throw new TemplateEditError(
      `the template's Resources has no ${logicalId} (it has ${Object.keys(template.Resources).join(", ")}): run the doctor again on the template it examined`,
    );
  if (!isDeepStrictEqual(template.Resources[logicalId], plainJson(before)))
    throw new TemplateEditError(`${logicalId} in the template is not the resource the doctor read: the file changed since, run the doctor again`);
}

/** Whether the edited text reads as `expected`: the original with each resource as its `after`. */
function checkEdited(edited: string, expected: TemplateJs) {
  let actual: unknown;
  try {
    actual = readYaml(edited);
  } catch (error) {
    throw new TemplateEditError(`editing the template in place would break it (${(error as Error).message}); ${BY_HAND}`, { cause: error });
  }
  const where = firstDifference(plainJson(actual), expected, []);
  if (where)
    throw new TemplateEditError(`the edit would also change ${where.join(".")} (it shares a YAML anchor or a layout this editor does not rewrite); ${BY_HAND}`);
}

function firstDifference(a: unknown, b: unknown, path: Path): Path | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (!isRecord(a) || !isRecord(b)) return path;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const found = firstDifference(a[key], b[key], [...path, key]);
    if (found) return found;
  }
  return path;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A value as a template holds it: no undefined properties (a rewrite may leave one). */
const plainJson = <T,>(value: T): T => JSON.parse(JSON.stringify(value ?? null)) as T;

/**
 * The changed leaves from `before` to `after`. It descends only where `isMap(path)` (in YAML, a
 * plain map in the text): a tagged node (!Ref ...), an alias or a list is replaced whole.
 */
function diff(before: unknown, after: unknown, path: Path, isMapAt: (path: Path) => boolean): Edit[] {
  if (!isRecord(before) || !isRecord(after) || !isMapAt(path)) return isDeepStrictEqual(before, after) ? [] : [{ path, value: after }];
  const edits: Edit[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) edits.push({ path: [...path, key], value });
    else edits.push(...diff(before[key], value, [...path, key], isMapAt));
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) edits.push({ path: [...path, key], remove: true });
  return edits;
}

// ---------------------------------------------------------------------------------------------
// Splicing one edit into the text

const isPlainMap = (node: unknown): node is MapNode => isMap(node) && (node.tag === undefined || node.tag === "tag:yaml.org,2002:map");

const pairOf = (map: YAMLMap<unknown, unknown>, key: string) =>
  (map.items as Pair<unknown, Node | null>[]).find((pair) => isScalar(pair.key) && String(pair.key.value) === key);

const rangeOf = (node: Node | null | undefined) => {
  if (!node?.range) throw new Unsupported("a node without a place in the text");
  return node.range;
};

/** Applies one edit: the text re-read first, so each edit sees the places the previous ones left. */
function applyEdit(text: string, edit: Edit): string {
  const doc = documentOf(text);
  const editor = new Splicer(text, doc);
  if (!isPlainMap(doc.contents)) throw new Unsupported("the template is not a map");
  let map: MapNode = doc.contents;
  const walked: { map: MapNode; pair: Pair<Scalar, Node | null> }[] = [];
  for (const [index, key] of edit.path.entries()) {
    const pair = pairOf(map, key) as Pair<Scalar, Node | null> | undefined;
    editor.refuseAliased([...walked.map((step) => step.map), map, pair?.value]);
    if (!pair) {
      if ("remove" in edit) return text;
      // New maps on the way to the leaf are written with it.
      return editor.insert(
        map,
        key,
        edit.path.slice(index + 1).reduceRight<unknown>((value, inner) => ({ [inner]: value }), edit.value),
      );
    }
    if (index === edit.path.length - 1) {
      if (!("remove" in edit)) return editor.replace(map, pair, edit.value);
      if (map.items.length > 1) return editor.remove(map, pair);
      // Its map's last key: the map stays, empty.
      const parent = walked.at(-1);
      if (!parent) throw new Unsupported("the template would be empty");
      return editor.replace(parent.map, parent.pair, {});
    }
    walked.push({ map, pair });
    if (!isPlainMap(pair.value)) throw new Unsupported(`${edit.path.slice(1, index + 1).join(".")} is not a map`);
    map = pair.value;
  }
  return text;
}

interface Style {
  /** The indentation of one level of nesting. */
  indent: number;
  /** Whether a block list's items are indented under their key. */
  indentSeq: boolean;
  /** Single quotes for strings that need quotes (true), or double ones unless single ones spare escapes (null). */
  singleQuote: true | null;
  padding: Padding;
}

/** Whether flow collections are padded: `[ a ]`, `{ a: 1 }`. */
type Padding = { seq: boolean; map: boolean };

/** Whether a one-line flow collection is padded; null if empty or laid out on lines. */
function paddedAt(text: string, collection: YAMLMap<unknown, unknown> | YAMLSeq): boolean | null {
  const start = collection.range?.[0];
  if (start === undefined || collection.items.length === 0) return null;
  const next = text[start + 1];
  return next === " " ? true : next === "\n" || next === "\r" ? null : false;
}

type MapNode = YAMLMap<Scalar, Node | null>;

/** Text edits at the places the Document gives, each returning the whole new text. */
class Splicer {
  private readonly text: string;
  private readonly doc: Document.Parsed;
  private readonly eol: string;
  private readonly style: Style;
  /** The anchors something aliases (`*name`). */
  private readonly aliased = new Set<string>();

  constructor(text: string, doc: Document.Parsed) {
    this.text = text;
    this.doc = doc;
    this.eol = text.includes("\r\n") ? "\r\n" : "\n";
    this.style = styleOf(text, doc);
    visit(doc, { Alias: (_, alias) => void this.aliased.add(alias.source) });
  }

  /** An edit in or of an anchored node that is aliased elsewhere would change the aliases too. */
  refuseAliased(nodes: (Node | null | undefined)[]) {
    for (const node of nodes) {
      const anchor = node && !isAlias(node) ? node.anchor : undefined;
      if (anchor && this.aliased.has(anchor))
        throw new Unsupported(`it is in the YAML anchor &${anchor}, which *${anchor} repeats elsewhere: that would change too`);
    }
  }

  /** `key: value` added as the map's last entry, in the map's own style. */
  insert(map: MapNode, key: string, value: unknown): string {
    const [start, end] = rangeOf(map);
    const last = map.items.at(-1);
    if (map.flow) {
      const padding = this.paddingIn(map);
      if (!last) return this.splice(start, end, this.flow({ [key]: value }, padding));
      return this.splice(rangeOf(last.value ?? last.key)[1], null, `, ${this.flowScalar(this.node(key, true))}: ${this.flow(value, padding)}`);
    }
    if (!last) throw new Unsupported("an empty block map");
    // After the line of its last value: comments below it that the Document counts in the map stay below.
    const at = this.lineEnd(rangeOf(last.value ?? last.key)[1]);
    const lines = this.block({ [key]: value }, this.column(rangeOf(last.key)[0]), null, this.indentSeqIn(map));
    return this.splice(at, null, this.text[at - 1] === "\n" ? lines + this.eol : this.eol + lines);
  }

  /** The value of `pair` replaced: inline where it was inline, as block lines where it was block. */
  replace(map: MapNode, pair: Pair<Scalar, Node | null>, value: unknown): string {
    const old = pair.value;
    const [keyStart, keyEnd] = rangeOf(pair.key);
    const colon = this.colonAfter(keyEnd);
    const [start, end] = old ? rangeOf(old) : [colon + 1, colon + 1];
    const lineBreak = this.text.slice(start, end).endsWith("\n") ? this.eol : "";
    const like = isAlias(old) ? (old.resolve(this.doc) as Node | undefined) : old;
    const tagged = old !== null && (old.tag !== undefined || (!isAlias(old) && old.anchor !== undefined));
    const collection = Array.isArray(value) || isRecord(value);
    const oldCollection = isMap(old) || isSeq(old) ? old : null;
    const oldBlock = oldCollection !== null && !oldCollection.flow;
    if (map.flow || oldCollection?.flow || !collection || isEmpty(value)) {
      const padding = this.paddingIn(map.flow ? map : null, oldCollection?.flow ? oldCollection : null);
      const rendered = collection
        ? this.flow(value, padding, like)
        : map.flow
          ? this.flowScalar(this.node(value, false, like))
          : this.render(this.node(value, false, like));
      // The old value's text alone where nothing precedes it (a tag, an anchor) and it is inline.
      if (old && !tagged && end > start && !oldBlock) return this.splice(start, end, rendered + lineBreak);
      // A comment on the key's line of a block value stays on it.
      const comment = oldBlock ? this.commentAfter(colon + 1) : null;
      return this.splice(colon + 1, end, ` ${rendered}${comment ? ` ${comment.text}` : ""}${lineBreak}`);
    }
    if (oldCollection && !oldCollection.flow && oldCollection.tag === undefined) {
      // Block lines in place of block lines: the key's line (a comment on it) stays.
      return this.splice(this.lineStart(start), end, this.block(value, this.column(start), like) + lineBreak);
    }
    const indentSeq = this.indentSeqIn(map);
    const column = this.column(keyStart) + (Array.isArray(value) && !indentSeq ? 0 : this.style.indent);
    // A comment on the line of the old value moves to the key's line, above the new block.
    const comment = this.commentAfter(oldBlock ? colon + 1 : end);
    const stop = !oldBlock && comment ? comment.end : end;
    return this.splice(colon + 1, stop, `${comment ? ` ${comment.text}` : ""}${this.eol}${this.block(value, column, like, indentSeq)}${lineBreak}`);
  }

  /** The pair removed: its lines in a block map, `key: value` and a comma in a flow one. */
  remove(map: MapNode, pair: Pair<Scalar, Node | null>): string {
    const [keyStart] = rangeOf(pair.key);
    const valueEnd = rangeOf(pair.value ?? pair.key)[1];
    if (map.flow) {
      const index = map.items.indexOf(pair);
      const next = map.items[index + 1];
      if (next) return this.splice(keyStart, rangeOf(next.key)[0], "");
      const previous = map.items[index - 1]!;
      return this.splice(rangeOf(previous.value ?? previous.key)[1], valueEnd, "");
    }
    const start = this.lineStart(keyStart);
    if (this.text.slice(start, keyStart).trim() !== "") throw new Unsupported("its key shares a line with another node");
    // Through the end of its value's line: a comment there goes with it, those below stay.
    return this.splice(start, this.lineEnd(valueEnd), "");
  }

  private splice(start: number, end: number | null, replacement: string): string {
    return this.text.slice(0, start) + replacement + this.text.slice(end ?? start);
  }

  private lineStart(position: number): number {
    return this.text.lastIndexOf("\n", position - 1) + 1;
  }

  /** Just past the line break of the line `position` is on; `position` itself if a line starts there. */
  private lineEnd(position: number): number {
    if (position > 0 && this.text[position - 1] === "\n") return position;
    const newline = this.text.indexOf("\n", position);
    return newline < 0 ? this.text.length : newline + 1;
  }

  /** The comment ending the line `from` is on, if there is one after `from`: its text, and where it ends. */
  private commentAfter(from: number): { text: string; end: number } | null {
    const newline = this.text.indexOf("\n", from);
    const stop = newline < 0 ? this.text.length : this.text[newline - 1] === "\r" ? newline - 1 : newline;
    const comment = /(?:^|\s)(#.*)$/.exec(this.text.slice(from, stop))?.[1];
    return comment ? { text: comment, end: stop } : null;
  }

  private column(position: number): number {
    return position - this.lineStart(position);
  }

  private colonAfter(keyEnd: number): number {
    const colon = /^[ \t]*:/.exec(this.text.slice(keyEnd));
    if (!colon) throw new Unsupported("its key is not a plain `key:`");
    return keyEnd + colon[0].length - 1;
  }

  /** The padding of flow collections here: the document's, or that of the collections given. */
  private paddingIn(...collections: (YAMLMap<unknown, unknown> | YAMLSeq | null)[]): Padding {
    const padding = { ...this.style.padding };
    for (const collection of collections) {
      const padded = collection && paddedAt(this.text, collection);
      if (padded !== null && padded !== undefined) padding[isSeq(collection) ? "seq" : "map"] = padded;
    }
    return padding;
  }

  /** Whether block lists in `map` indent their items (the document's way if it has none). */
  private indentSeqIn(map: MapNode): boolean {
    const pair = map.items.find(({ value }) => isSeq(value) && !value.flow && value.range);
    return pair ? this.column(rangeOf(pair.value)[0]) > this.column(rangeOf(pair.key)[0]) : this.style.indentSeq;
  }

  private options(flowCollectionPadding: boolean, indentSeq = this.style.indentSeq) {
    const { indent, singleQuote } = this.style;
    // No line is wrapped; a string with a line break stays one double-quoted line.
    return { lineWidth: 0, blockQuote: false, flowCollectionPadding, indent, indentSeq, singleQuote };
  }

  private render(node: Node, indentSeq?: boolean): string {
    const doc = new Document();
    doc.contents = node;
    return doc.toString(this.options(true, indentSeq)).trimEnd();
  }

  private node(value: unknown, flow: boolean, like?: Node | null): Node {
    // No anchors: a value the rewrite put in two places is written twice.
    const node = this.doc.createNode(value, { flow, aliasDuplicateObjects: false }) as Node;
    matchQuotes(node, like);
    return node;
  }

  /** A value on one line, in YAML's flow style (written here: the yaml library pads `[]` and `{}` alike). */
  private flow(value: unknown, padding: Padding, like?: Node | null): string {
    const write = (node: unknown): string => {
      if (!isSeq(node) && !isMap(node)) return this.flowScalar(node as Node);
      const pad = node.items.length > 0 && padding[isSeq(node) ? "seq" : "map"] ? " " : "";
      const items = isSeq(node) ? node.items.map(write) : (node.items as Pair[]).map((pair) => `${write(pair.key)}: ${write(pair.value)}`);
      const [open, close] = isSeq(node) ? ["[", "]"] : ["{", "}"];
      return `${open}${pad}${items.join(", ")}${pad}${close}`;
    };
    return write(this.node(value, true, like));
  }

  /** A scalar in a flow collection: quoted where `,[]{}` would end it. */
  private flowScalar(node: Node): string {
    const list = new YAMLSeq();
    list.flow = true;
    list.items.push(node);
    const doc = new Document();
    doc.contents = list;
    return doc.toString(this.options(false)).trimEnd().slice(1, -1);
  }

  /** Block lines at `column`, the last without its line break. */
  private block(value: unknown, column: number, like?: Node | null, indentSeq?: boolean): string {
    const indent = " ".repeat(column);
    return this.render(this.node(value, false, like), indentSeq)
      .split("\n")
      .map((line) => indent + line)
      .join(this.eol);
  }
}

const isEmpty = (value: unknown) => (Array.isArray(value) ? value.length === 0 : isRecord(value) && Object.keys(value).length === 0);

/** New strings quoted as the value they replace was (`"@aws-sdk/x"` stays double-quoted). */
function matchQuotes(node: unknown, like: Node | null | undefined) {
  const quoted = (scalar: unknown) =>
    isScalar(scalar) && typeof scalar.value === "string" && scalar.type !== undefined && ["PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE"].includes(scalar.type);
  if (isScalar(node) && typeof node.value === "string" && quoted(like)) node.type = (like as Scalar).type;
  if (!isSeq(node) || !isSeq(like)) return;
  const olds = like.items.filter(quoted) as Scalar[];
  const types = new Set(olds.map((old) => old.type));
  for (const item of node.items) {
    if (!isScalar(item) || typeof item.value !== "string") continue;
    const same = olds.find((old) => old.value === item.value);
    if (same) item.type = same.type;
    else if (types.size === 1 && olds.length === like.items.length && !types.has("PLAIN")) item.type = [...types][0];
  }
}

/** How the document indents and quotes, for what is added to it. */
function styleOf(text: string, doc: Document.Parsed): Style {
  let single = 0;
  let double = 0;
  let indented = 0;
  let flush = 0;
  let indent = 0;
  const padded = { seq: [0, 0], map: [0, 0] };
  const column = (position: number) => position - (text.lastIndexOf("\n", position - 1) + 1);
  visit(doc, {
    Scalar: (_, scalar) => {
      if (scalar.type === "QUOTE_SINGLE") single++;
      if (scalar.type === "QUOTE_DOUBLE") double++;
    },
    Seq: (_, seq) => void (seq.flow && countPadding(padded.seq, paddedAt(text, seq))),
    Map: (_, map) => void (map.flow && countPadding(padded.map, paddedAt(text, map))),
    Pair: (_, pair) => {
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      if (!key?.range || !value?.range || isScalar(value) || isAlias(value) || value.flow) return;
      const depth = isMap(value) ? column((value.items[0]?.key as Node | undefined)?.range?.[0] ?? 0) - column(key.range[0]) : 0;
      if (isMap(value) && depth > 0 && indent === 0) indent = depth;
      if (isSeq(value)) {
        if (column(value.range[0]) > column(key.range[0])) indented++;
        else flush++;
      }
    },
  });
  // Without flow collections of a kind, those of the other kind say; without any, padded (the yaml library's default).
  const seq = padded.seq[0]! + padded.seq[1]! > 0 ? padded.seq[0]! >= padded.seq[1]! : padded.map[0]! >= padded.map[1]!;
  const map = padded.map[0]! + padded.map[1]! > 0 ? padded.map[0]! >= padded.map[1]! : seq;
  return { indent: indent || 2, indentSeq: indented >= flush, singleQuote: single > double ? true : null, padding: { seq, map } };
}

/** Counts a collection as padded (counts[0]) or not (counts[1]). */
function countPadding(counts: number[], padded: boolean | null) {
  if (padded !== null) counts[padded ? 0 : 1]!++;
}

// ---------------------------------------------------------------------------------------------
// JSON templates

/**
 * A JSON template is edited as JSON and written back with JSON.stringify at its own indentation,
 * which keeps every other line only if that is how it was written (the usual, generated case):
 * a JSON template laid out otherwise is refused rather than re-laid out.
 */
function editJson(text: string, changes: TemplateChange[]): string {
  let template: Partial<TemplateJs>;
  try {
    template = JSON.parse(text.replace(/^\uFEFF/, "")) as Partial<TemplateJs>;
  } catch (error) {
    throw new TemplateEditError(`the template is not valid JSON: ${(error as Error).message}. Fix it, then run the doctor again`, { cause: error });
  }
  if (!isRecord(template.Resources)) throw new TemplateEditError("the template has no Resources section: it is not a SAM template");
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? "";
  const write = (value: unknown) =>
    (text.startsWith("\uFEFF") ? "\uFEFF" : "") + JSON.stringify(value, null, indent).replaceAll("\n", eol) + (/\r?\n$/.test(text) ? eol : "");
  if (write(template) !== text)
    throw new TemplateEditError(
      `the template is JSON laid out otherwise than JSON.stringify with its indentation writes it: writing it back would change every line; ${BY_HAND}`,
    );
  for (const { logicalId, before, after } of changes) {
    checkResource(template as TemplateJs, logicalId, before);
    for (const edit of diff(plainJson(before), plainJson(after), ["Resources", logicalId], () => true)) {
      const parent = edit.path.slice(0, -1).reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, template);
      const key = edit.path.at(-1)!;
      if ("remove" in edit) delete parent[key];
      else parent[key] = edit.value;
    }
  }
  return write(template);
}
