/**
 * A thrown value as plain data (it crosses thread boundaries): why a fuzz
 * seed, a sweep run, or a pool worker failed.
 */
import { AgentFailedError } from "./agent-host.ts";

/** Stack lines kept with a failure (the error line plus the innermost frames). */
const STACK_LINES_MAX = 8;

/** Why a seed failed. `kind` is the error's class name, or WorkerCrash / Timeout for a dead worker. */
export interface FuzzFailure {
  readonly kind: string;
  /** One line: for an agent's failure, the agent, where, when, and the cause's class and message. */
  readonly message: string;
  /** The first lines of the stack (of the cause, for an agent's failure). */
  readonly stack: string;
  /** AgentFailedError: the agent's name and the class of what it threw (e.g. InvariantError). */
  readonly agent?: string;
  readonly causeKind?: string;
}

function firstLine(text: string): string {
  const end = text.indexOf("\n");
  return end < 0 ? text : text.slice(0, end);
}

function stackHead(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const stack = error.stack ?? `${error.name}: ${error.message}`;
  return stack.split("\n").slice(0, STACK_LINES_MAX).join("\n");
}

/** A thrown value as a failure record (plain data: it crosses thread boundaries). */
export function describeFailure(error: unknown): FuzzFailure {
  if (error instanceof AgentFailedError) {
    const { agent, what, atMicros, error: cause } = error.failure;
    const causeKind = cause instanceof Error ? cause.name : typeof cause;
    const causeMessage = cause instanceof Error ? firstLine(cause.message) : String(cause);
    return {
      kind: error.name,
      message: `agent "${agent}" failed in ${what} at virtual time ${atMicros}: ${causeKind}: ${causeMessage}`,
      stack: stackHead(cause),
      agent,
      causeKind,
    };
  }
  if (error instanceof Error) return { kind: error.name, message: firstLine(error.message), stack: stackHead(error) };
  return { kind: typeof error, message: String(error), stack: String(error) };
}

