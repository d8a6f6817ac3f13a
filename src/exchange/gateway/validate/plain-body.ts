/**
 * A fast path in front of the zod request schemas, for the bodies that are
 * plainly valid (nearly all of them): a JSON object whose members are each
 * exactly the type and pattern its schema field wants. It accepts a subset
 * of what the schema accepts and builds the very object zod would (the
 * schema's fields in schema order, then the extra members in the order sent:
 * `looseObject` keeps them), so a request reads the same either way. Anything
 * else (a missing or mistyped field, an undefined member, an unusual key)
 * is left to zod, which finds the first issue and its message.
 *
 * The plan of a schema is read once from its shape: each field must be one
 * of the spec's scalars below (or wrap one in exactOptional); a schema with
 * any other field gets no fast path.
 */
import type { z } from "zod";
import { ORDER_TYPES, OrderType, TIME_IN_FORCES, TimeInForce } from "../../../spec/enums.ts";
import {
  ADDRESS_PATTERN,
  Address,
  DECIMAL_UINT_PATTERN,
  decimalDigitsAtMost,
  Id,
  Nonce,
  SIGNATURE_PATTERN,
  Signature,
  UINT256_MAX_DECIMAL,
  UINT64_MAX_DECIMAL,
  UNSIGNED_DECIMAL_PATTERN,
  UnsignedDecimal,
  UnsignedInteger,
} from "../../../spec/scalars.ts";

type MemberCheck = (value: unknown) => boolean;

interface Plan {
  readonly keys: readonly string[];
  readonly checks: readonly MemberCheck[];
  readonly optional: readonly boolean[];
  readonly known: ReadonlySet<string>;
}

const isUnsignedInteger: MemberCheck = (value) => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isString: MemberCheck = (value) => typeof value === "string";
const isBoolean: MemberCheck = (value) => typeof value === "boolean";
const matches =
  (pattern: RegExp): MemberCheck =>
  (value) =>
    typeof value === "string" && pattern.test(value);
const isUintAtMost =
  (maxDecimal: string): MemberCheck =>
  (value) =>
    typeof value === "string" && DECIMAL_UINT_PATTERN.test(value) && decimalDigitsAtMost(value, maxDecimal);
const isOneOf =
  (values: readonly string[]): MemberCheck =>
  (value) =>
    typeof value === "string" && values.includes(value);

/**
 * `matches`, remembering the texts that matched: a signer's address comes
 * back with each of its requests, and the pattern test costs ~1,400
 * instructions an address (cachegrind), a set lookup a few hundred. Whether a
 * text matches is a pure function of the text, so a remembered text cannot
 * go stale; the set is bounded (a full set starts over).
 */
export function matchesRemembered(pattern: RegExp, capacity: number): MemberCheck {
  const matched = new Set<string>();
  return (value) => {
    if (typeof value !== "string") return false;
    if (matched.has(value)) return true;
    if (!pattern.test(value)) return false;
    if (matched.size >= capacity) matched.clear();
    matched.add(value);
    return true;
  };
}

/**
 * `matches`, remembering the last text that matched: trusted-mode clients
 * (the simulator's agents, the benchmarks) send one fixed signature, whose
 * pattern test costs ~3,600 instructions; a signed request's signature is new
 * each time, and differs from the last one within its first characters.
 */
export function matchesLast(pattern: RegExp): MemberCheck {
  let last: string | undefined;
  return (value) => {
    if (typeof value !== "string") return false;
    if (value === last) return true;
    if (!pattern.test(value)) return false;
    last = value;
    return true;
  };
}

/** Distinct addresses remembered as valid (matchesRemembered). */
const ADDRESSES_REMEMBERED = 4096;

/** The spec scalars the fast path knows, by schema identity. */
const SCALAR_CHECKS = new Map<unknown, MemberCheck>([
  [UnsignedInteger, isUnsignedInteger],
  [UnsignedDecimal, matches(UNSIGNED_DECIMAL_PATTERN)],
  [Id, isUintAtMost(UINT64_MAX_DECIMAL)],
  [Nonce, isUintAtMost(UINT256_MAX_DECIMAL)],
  [Signature, matchesLast(SIGNATURE_PATTERN)],
  [Address, matchesRemembered(ADDRESS_PATTERN, ADDRESSES_REMEMBERED)],
  [OrderType, isOneOf(ORDER_TYPES)],
  [TimeInForce, isOneOf(TIME_IN_FORCES)],
]);

interface SchemaNode {
  readonly def: { readonly type: string; readonly innerType?: SchemaNode; readonly checks?: readonly unknown[]; readonly catchall?: SchemaNode };
  readonly shape?: Record<string, SchemaNode>;
}

const plans = new WeakMap<object, Plan | null>();

function memberCheck(node: SchemaNode): MemberCheck | undefined {
  const known = SCALAR_CHECKS.get(node);
  if (known !== undefined) return known;
  const plainType = node.def.checks === undefined || node.def.checks.length === 0;
  if (node.def.type === "string" && plainType) return isString;
  if (node.def.type === "boolean" && plainType) return isBoolean;
  return undefined;
}

function planOf(schema: object): Plan | null {
  let plan = plans.get(schema);
  if (plan === undefined) {
    plan = makePlan(schema as SchemaNode);
    plans.set(schema, plan);
  }
  return plan;
}

function makePlan(schema: SchemaNode): Plan | null {
  // Only a looseObject (unknown members kept as they are) of known scalars.
  if (schema.def.type !== "object" || schema.shape === undefined || schema.def.catchall?.def.type !== "unknown") return null;
  const keys: string[] = [];
  const checks: MemberCheck[] = [];
  const optional: boolean[] = [];
  for (const [key, field] of Object.entries(schema.shape)) {
    const isOptional = field.def.type === "optional";
    const inner = isOptional ? field.def.innerType : field;
    const check = inner === undefined ? undefined : memberCheck(inner);
    if (check === undefined) return null;
    keys.push(key);
    checks.push(check);
    optional.push(isOptional);
  }
  return { keys, checks, optional, known: new Set(keys) };
}

/**
 * The schema's output for a plainly valid `body`, or undefined when the body
 * is not plainly valid (or the schema has no plan): then ask zod. `ownKeys`:
 * the body's Object.keys when the caller has them.
 */
export function parsePlainBody<T>(schema: z.ZodType<T>, body: unknown, ownKeys?: readonly string[]): T | undefined {
  if (typeof body !== "object" || body === null || Object.getPrototypeOf(body) !== Object.prototype) return undefined;
  const plan = planOf(schema);
  if (plan === null) return undefined;
  const source = body as Record<string, unknown>;
  const sent = ownKeys ?? Object.keys(source);
  if (followsPlan(plan, source, sent)) return checkedCopy(plan, source, sent) as T | undefined;
  const out: Record<string, unknown> = {};
  const { keys, checks, optional, known } = plan;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!Object.hasOwn(source, key)) {
      if (optional[i]) continue;
      return undefined;
    }
    const value = source[key];
    if (!checks[i]!(value)) return undefined;
    out[key] = value;
  }
  for (const key of sent) {
    if (known.has(key)) continue;
    const value = source[key];
    if (key === "__proto__" || value === undefined) return undefined;
    out[key] = value;
  }
  return out as T;
}

/**
 * Whether the body's own members are already in the order of the output:
 * the schema's fields that it has, in schema order, then only extra members
 * (`sent` is its Object.keys). So do the bodies of this project's clients
 * (they are built in schema order), and then the output can be a copy of
 * the body, made by one spread instead of a store per member: a new member
 * stored into an object by a computed key takes V8's generic path, which
 * made building the output cost more than checking it.
 */
function followsPlan(plan: Plan, source: Record<string, unknown>, sent: readonly string[]): boolean {
  const { keys, known } = plan;
  let next = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (sent[next] === key) next++;
    // Not next: then it must be absent (not out of order, nor a non-enumerable member).
    else if (Object.hasOwn(source, key)) return false;
  }
  for (let i = next; i < sent.length; i++) if (known.has(sent[i]!)) return false;
  // A spread would copy symbol-keyed members too, which the output leaves out.
  return Object.getOwnPropertySymbols(source).length === 0;
}

/**
 * The output for a body that followsPlan: a copy of it, once each member
 * passes the same checks as in parsePlainBody (read from the copy, so that
 * each member of the body is read once, as there). The schema's fields that
 * the body has are the first of `sent`, in schema order; the rest are extras.
 */
function checkedCopy(plan: Plan, source: Record<string, unknown>, sent: readonly string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...source };
  const { keys, checks, optional } = plan;
  let next = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (sent[next] !== key) {
      if (optional[i]) continue;
      return undefined;
    }
    next++;
    if (!checks[i]!(out[key])) return undefined;
  }
  for (let i = next; i < sent.length; i++) {
    const key = sent[i]!;
    if (key === "__proto__" || out[key] === undefined) return undefined;
  }
  return out;
}
