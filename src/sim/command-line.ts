/**
 * The `shadowbook run` command that runs a scenario again as a run was run:
 * a fuzz failure's reproduce line (fuzz.ts reproductionCommand) and the
 * command an input log names (`shadowbook.command`, src/record/input-log.ts),
 * which `shadowbook replay` prints: a replay re-executes the Exchange's
 * inputs, this command re-runs the backtest, agents included.
 *
 * Flags in a fixed order, each only when it changes the run: `--seed`
 * always, `--fuzz` (the seed's draw; it checks the invariants, so
 * `--invariants` is implied), `--duration`, `--invariants`,
 * `--invariant-every` (not for the default, 1), `--verify-signatures`, then
 * the `--set` overrides as they were typed. Words are quoted for a POSIX
 * shell where they need it. Not `--out`, `--no-progress` or `--verbose`:
 * they change what is written or shown, never the run.
 */
import { setFlagsText, shellWord, type SetOverride } from "./overrides.ts";

export interface RunCommandLine {
  /** The seed's fuzz draw (`--fuzz`). */
  readonly fuzz?: boolean;
  readonly durationSeconds?: number;
  /** The invariants checked (`--invariants`; implied by `fuzz`). */
  readonly invariants?: boolean;
  readonly invariantEveryBlocks?: number;
  /** Signed mode asked for on the command line (`--verify-signatures`). */
  readonly verifySignatures?: boolean;
  readonly overrides?: readonly SetOverride[];
}

/** `npx shadowbook run <scenario> --seed N ...`: see above. `scenario` is as given (a name in scenarios/ or a path). */
export function runCommandLine(scenario: string, seed: number, options: RunCommandLine = {}): string {
  const fuzz = options.fuzz === true ? " --fuzz" : "";
  const duration = options.durationSeconds === undefined ? "" : ` --duration ${plainDecimal(options.durationSeconds)}`;
  const invariants = options.invariants === true && options.fuzz !== true ? " --invariants" : "";
  const every = options.invariantEveryBlocks === undefined || options.invariantEveryBlocks === 1 ? "" : ` --invariant-every ${options.invariantEveryBlocks}`;
  const signed = options.verifySignatures === true ? " --verify-signatures" : "";
  return `npx shadowbook run ${shellWord(scenario)} --seed ${seed}${fuzz}${duration}${invariants}${every}${signed}${setFlagsText(options.overrides ?? [])}`;
}

/**
 * A positive number as `--duration` reads it back: digits with an optional
 * fraction, never an exponent (String(1e-7) is "1e-7", which the flag
 * refuses). Exact: the text parses back to the same number.
 */
export function plainDecimal(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  if (Math.abs(value) >= 1) return BigInt(value).toString();
  // Below 1e-6: the shortest round-trip digits, shifted by the exponent.
  const [mantissa, exponent] = text.split(/e/i) as [string, string];
  const digits = mantissa.replace("-", "").replace(".", "");
  return `${value < 0 ? "-" : ""}0.${"0".repeat(-Number(exponent) - 1)}${digits}`;
}
