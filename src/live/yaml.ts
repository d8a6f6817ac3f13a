/**
 * A small, deterministic YAML emitter for the served API documents
 * (api-docs.ts): JSON data in, block YAML 1.2 out.
 *
 * - Mappings keep their keys' order (the documents are built in a
 *   deliberate order); sequences are indented under their key.
 * - A string is written plain only when it cannot be read as anything else:
 *   it starts with a letter, `_`, `$` or `/`, holds only letters, digits,
 *   `_ $ / . - { } ( )` and single spaces between words, and is not a YAML
 *   1.1/1.2 keyword (true, no, null, ...).
 *   Every other string (numbers as text such as status codes "200", `#/`
 *   references, prose) is written as a JSON string, which is a valid YAML
 *   double-quoted scalar.
 * - Numbers are written as JSON writes them; only finite numbers are
 *   accepted. Empty mappings and sequences are `{}` and `[]`.
 * - `undefined` members are skipped, as JSON.stringify skips them.
 *
 * The same value always gives the same text, byte for byte.
 */

const PLAIN_STRING = /^[A-Za-z_$/][A-Za-z0-9_$/.{}()-]*( [A-Za-z0-9_$/.{}()-]+)*$/;
const KEYWORDS = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function scalarText(value: unknown, where: string): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new RangeError(`${where}: number ${value} cannot be written as YAML`);
      return JSON.stringify(value);
    case "string":
      return PLAIN_STRING.test(value) && !KEYWORDS.test(value) ? value : JSON.stringify(value);
    case "object":
      if (Array.isArray(value)) return value.length === 0 ? "[]" : undefined;
      return Object.values(value as object).every((member) => member === undefined) ? "{}" : undefined;
    default:
      throw new TypeError(`${where}: a ${typeof value} cannot be written as YAML`);
  }
}

/** The block lines of a mapping or sequence, relative to indentation 0. */
function blockLines(value: object, where: string): string[] {
  const lines: string[] = [];
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      const at = `${where}[${index}]`;
      const scalar = scalarText(item, at);
      if (scalar !== undefined) {
        lines.push(`- ${scalar}`);
        return;
      }
      const inner = blockLines(item as object, at);
      lines.push(`- ${inner[0]}`);
      for (const line of inner.slice(1)) lines.push(`  ${line}`);
    });
    return lines;
  }
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined) continue;
    const keyText = scalarText(key, where)!;
    const at = `${where}.${key}`;
    const scalar = scalarText(member, at);
    if (scalar !== undefined) {
      lines.push(`${keyText}: ${scalar}`);
      continue;
    }
    lines.push(`${keyText}:`);
    for (const line of blockLines(member as object, at)) lines.push(`  ${line}`);
  }
  return lines;
}

/** The YAML text of a JSON value (a trailing newline included). */
export function toYaml(value: unknown): string {
  const scalar = scalarText(value, "$");
  if (scalar !== undefined) return `${scalar}\n`;
  return `${blockLines(value as object, "$").join("\n")}\n`;
}
