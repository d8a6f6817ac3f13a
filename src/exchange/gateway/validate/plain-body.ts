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

/** The spec scalars the fast path knows, by schema identity. */
const SCALAR_CHECKS = new Map<unknown, MemberCheck>([
  [UnsignedInteger, isUnsignedInteger],
  [UnsignedDecimal, matches(UNSIGNED_DECIMAL_PATTERN)],
  [Id, isUintAtMost(UINT64_MAX_DECIMAL)],
  [Nonce, isUintAtMost(UINT256_MAX_DECIMAL)],
  [Signature, matches(SIGNATURE_PATTERN)],
  [Address, matches(ADDRESS_PATTERN)],
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
 * is not plainly valid (or the schema has no plan): then ask zod.
 */
export function parsePlainBody<T>(schema: z.ZodType<T>, body: unknown): T | undefined {
  if (typeof body !== "object" || body === null || Object.getPrototypeOf(body) !== Object.prototype) return undefined;
  const plan = planOf(schema);
  if (plan === null) return undefined;
  const source = body as Record<string, unknown>;
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
  for (const key of Object.keys(source)) {
    if (known.has(key)) continue;
    const value = source[key];
    if (key === "__proto__" || value === undefined) return undefined;
    out[key] = value;
  }
  return out as T;
}
