/**
 * Errors as agents count them.
 *
 * An agent must not let an SDK error escape (a throwing agent stops the
 * run), and a backtest wants to know what went wrong how often. `errorCode`
 * names an error the way the summary counts it:
 *
 * - a RequestError from the service: its RequestErrorCode (`RATE_LIMITED_ERROR`);
 * - an error found by the SDK before sending: `client:<class>` (`client:InvalidParameterError`);
 * - anything else: `other:<name>`.
 */
import { ClientError, RequestFailedError } from "../../src/client/errors.ts";
import type { AgentContext } from "../../src/sim/agent.ts";

export function errorCode(error: unknown): string {
  if (error instanceof RequestFailedError) return error.code;
  if (error instanceof ClientError) return `client:${error.name}`;
  return `other:${error instanceof Error ? error.name : typeof error}`;
}

/** The RequestErrorCode of a service rejection, or undefined for any other error. */
export function requestErrorCode(error: unknown): string | undefined {
  return error instanceof RequestFailedError ? error.code : undefined;
}

/** Counts `error` on the agent's summary line as `<prefix>:<code>`. */
export function countError(ctx: Pick<AgentContext<unknown>, "count">, error: unknown, prefix = "error"): string {
  const code = errorCode(error);
  ctx.count(`${prefix}:${code}`);
  return code;
}
