/**
 * The run fingerprint: a SHA-256 over the canonical serialization of every
 * output record, in order. Two runs with the same fingerprint produced the
 * same outputs byte for byte; replay compares fingerprints at checkpoints.
 *
 * Canonical JSON: object keys sorted (by UTF-16 code units), no whitespace,
 * `undefined` members omitted (as JSON.stringify does), bigint as a decimal
 * string; non-finite numbers are refused, since the wire has none.
 */
import { createHash, type Hash } from "node:crypto";

export function canonicalJson(value: unknown): string {
  return serialize(value);
}

function serialize(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new RangeError(`canonical JSON has no ${value}`);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return `"${value.toString()}"`;
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          const element: unknown = value[i];
          out += element === undefined ? "null" : serialize(element);
        }
        return out + "]";
      }
      const record = value as Record<string, unknown>;
      const layout = layoutOf(Object.keys(record));
      let out = "{";
      let first = true;
      for (let i = 0; i < layout.keys.length; i++) {
        const member = record[layout.keys[i]!];
        if (member === undefined || typeof member === "function") continue;
        if (first) {
          out += layout.prefixes[i]!;
          first = false;
        } else {
          out += "," + layout.prefixes[i]!;
        }
        out += serialize(member);
      }
      return out + "}";
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/** An object's keys in canonical order, each with its quoted `"key":` text, and the key list it was made from. */
interface Layout {
  readonly source: readonly string[];
  readonly keys: readonly string[];
  readonly prefixes: readonly string[];
}

/**
 * Layouts by key list, as Object.keys gives it: the records of a stream come
 * in a few shapes, so each list is sorted and its keys quoted once. Bounded:
 * a full table starts over.
 */
const layouts = new Map<string, Layout>();
const LAYOUTS_MAX = 10_000;

function layoutOf(keys: string[]): Layout {
  const id = keys.join("\u0000");
  const known = layouts.get(id);
  // A key may itself hold the separator: a hit counts only when the lists are equal.
  if (known !== undefined && sameKeys(known.source, keys)) return known;
  const sorted = [...keys].sort();
  const layout: Layout = { source: keys, keys: sorted, prefixes: sorted.map((key) => JSON.stringify(key) + ":") };
  if (layouts.size >= LAYOUTS_MAX) layouts.clear();
  layouts.set(id, layout);
  return layout;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Incremental SHA-256 over a stream of records; `digest()` can be read at any point without ending it. */
export class Fingerprint {
  private readonly hash: Hash = createHash("sha256");
  private recordCount = 0;

  /** Adds one record (canonicalized). */
  update(record: unknown): void {
    this.updateCanonical(serialize(record));
  }

  /** Adds one record that is already canonical text. */
  updateCanonical(text: string): void {
    this.hash.update(text);
    this.hash.update("\n");
    this.recordCount++;
  }

  get count(): number {
    return this.recordCount;
  }

  /** Hex digest of everything added so far; the stream can go on after it. */
  digest(): string {
    return this.hash.copy().digest("hex");
  }
}

/** The fingerprint of a whole list of records at once. */
export function fingerprintOf(records: Iterable<unknown>): string {
  const fingerprint = new Fingerprint();
  for (const record of records) fingerprint.update(record);
  return fingerprint.digest();
}
