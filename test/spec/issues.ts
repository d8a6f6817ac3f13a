/** Helpers to assert why a schema rejected an input. */
import type { z } from "zod";

export interface FlatIssue {
  readonly path: string;
  readonly code: string;
  readonly params?: Record<string, unknown>;
}

/** Every issue of a failed parse, unions expanded, paths joined with ".". */
export function flatIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): FlatIssue[] {
  const out: FlatIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const flat: FlatIssue = { path: path.map(String).join("."), code: issue.code };
    out.push(issue.code === "custom" && issue.params !== undefined ? { ...flat, params: issue.params } : flat);
    if (issue.code === "invalid_union") {
      for (const branch of issue.errors) out.push(...flatIssues(branch, path));
    }
  }
  return out;
}

/** The issues of parsing `input`, or throws when the parse succeeds. */
export function rejection(schema: z.ZodType, input: unknown): FlatIssue[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`input was accepted: ${JSON.stringify(input)}`);
  return flatIssues(result.error.issues);
}

/** The joined paths of the issues of parsing `input`. */
export function rejectedPaths(schema: z.ZodType, input: unknown): string[] {
  return rejection(schema, input).map((issue) => issue.path);
}
