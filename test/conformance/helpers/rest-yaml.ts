/**
 * A reader for the block YAML that src/live/yaml.ts writes, so that tests
 * can read the served API documents back: block mappings and sequences by
 * indentation, `- ` items (a mapping may start on the dash line), JSON
 * double-quoted strings, plain strings, numbers, true/false/null, and the
 * flow forms `[]` and `{}`. Anything else (anchors, tags, block scalars,
 * flow collections with content) is an error: the emitter must not write it.
 */

interface Line {
  indent: number;
  text: string;
  number: number;
}

function fail(line: Line | undefined, message: string): never {
  throw new Error(`YAML line ${line?.number ?? "end"}: ${message}`);
}

/** The end index (exclusive) of the JSON string starting at text[0] === '"'. */
function quotedEnd(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/** Splits `key: rest` (rest may be empty); undefined when the text is not a mapping entry. */
function splitKey(text: string): { key: string; rest: string } | undefined {
  if (text.startsWith('"')) {
    const end = quotedEnd(text);
    if (end < 0 || text[end] !== ":") return undefined;
    if (end + 1 < text.length && text[end + 1] !== " ") return undefined;
    return { key: JSON.parse(text.slice(0, end)) as string, rest: text.slice(end + 1).trim() };
  }
  const match = /^([^\s:"#\-[\]{}][^:]*?):(?: (.*))?$/.exec(text);
  if (match === null) return undefined;
  return { key: match[1]!, rest: (match[2] ?? "").trim() };
}

function scalar(text: string, line: Line): unknown {
  if (text === "null") return null;
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "[]") return [];
  if (text === "{}") return {};
  if (text.startsWith('"')) {
    if (quotedEnd(text) !== text.length) fail(line, `trailing text after a quoted string: ${text}`);
    return JSON.parse(text);
  }
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (/^[\s\-?:,[\]{}#&*!|>'"%@`]/.test(text) || /: |\s#/.test(text) || text !== text.trim()) fail(line, `a plain scalar YAML would not read as this string: ${text}`);
  return text;
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

class Reader {
  private index = 0;

  constructor(private readonly lines: Line[]) {}

  get done(): boolean {
    return this.index >= this.lines.length;
  }

  block(indent: number): unknown {
    const line = this.lines[this.index];
    if (line === undefined || line.indent !== indent) fail(line, `expected a block at indentation ${indent}`);
    return isItem(line.text) ? this.sequence(indent) : this.mapping(indent);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (let line = this.lines[this.index]; line !== undefined && line.indent === indent && isItem(line.text); line = this.lines[this.index]) {
      const rest = line.text.slice(2);
      if (!isItem(rest) && splitKey(rest) === undefined) {
        out.push(scalar(rest, line));
        this.index++;
        continue;
      }
      // The item's content starts on the dash line: read it as a line two columns further in.
      this.lines[this.index] = { indent: indent + 2, text: rest, number: line.number };
      out.push(this.block(indent + 2));
    }
    return out;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let line = this.lines[this.index]; line !== undefined && line.indent === indent; line = this.lines[this.index]) {
      const entry = splitKey(line.text);
      if (entry === undefined) fail(line, `expected "key: value", got ${line.text}`);
      if (Object.hasOwn(out, entry.key)) fail(line, `duplicate key ${entry.key}`);
      this.index++;
      if (entry.rest !== "") {
        out[entry.key] = scalar(entry.rest, line);
        continue;
      }
      const next = this.lines[this.index];
      out[entry.key] = next !== undefined && next.indent > indent ? this.block(next.indent) : null;
    }
    const next = this.lines[this.index];
    if (next !== undefined && next.indent > indent) fail(next, "unexpected indentation");
    return out;
  }
}

export function parseYaml(text: string): unknown {
  if (!text.endsWith("\n")) throw new Error("YAML text must end with a newline");
  const lines = text
    .split("\n")
    .map((raw, index) => ({ indent: raw.length - raw.trimStart().length, text: raw.trimStart(), number: index + 1 }))
    .filter((line) => line.text !== "");
  if (lines.length === 1 && splitKey(lines[0]!.text) === undefined && !isItem(lines[0]!.text)) return scalar(lines[0]!.text, lines[0]!);
  const reader = new Reader(lines);
  const value = reader.block(0);
  if (!reader.done) throw new Error("YAML: text left after the top-level block");
  return value;
}

/** Every `$ref` in a document (local references only), with where it was found. */
export function refsOf(value: unknown, where = "$", out: { ref: string; where: string }[] = []): { ref: string; where: string }[] {
  if (Array.isArray(value)) value.forEach((item, index) => refsOf(item, `${where}[${index}]`, out));
  else if (value !== null && typeof value === "object") {
    for (const [key, member] of Object.entries(value)) {
      if (key === "$ref" && typeof member === "string") out.push({ ref: member, where });
      else refsOf(member, `${where}.${key}`, out);
    }
  }
  return out;
}

/** Resolves a local JSON pointer reference (`#/a/b`); undefined when it points nowhere. */
export function resolveRef(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
