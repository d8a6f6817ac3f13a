/**
 * Runs `shadowbook replay` in this process (src/cli/replay.ts replayCommand)
 * the way a test reads it: the lines it printed, its result, and the exit
 * status it set (restored afterwards, so that a DIVERGES does not fail the
 * test run).
 */
import { vi } from "vitest";
import { replayCommand, type ReplayCommandOptions, type ReplayCommandResult } from "../../src/cli/replay.ts";

export async function runReplay(path: string, options: ReplayCommandOptions = {}): Promise<{ lines: string[]; result: ReplayCommandResult; exitCode: typeof process.exitCode }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    const result = await replayCommand(path, options);
    return { lines, result, exitCode: process.exitCode };
  } finally {
    process.exitCode = before;
    spy.mockRestore();
  }
}
