/**
 * Assertions for invariants: a broken invariant is a bug, and it throws at
 * the line that found it (so a seed that breaks it replays to the same line).
 * Business rejections are RequestErrors, never assertions.
 *
 * A message is an argument, so a template literal is built on every call,
 * even when the condition holds: where the check runs often (per order,
 * per output, per audit of every account), write `if (!condition)
 * assert(false, \`...\`)`, which builds it only on failure.
 */
export class InvariantError extends Error {
  override readonly name = "InvariantError";
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}

export function assertNever(value: never, what = "value"): never {
  throw new InvariantError(`unexpected ${what}: ${JSON.stringify(value)}`);
}
