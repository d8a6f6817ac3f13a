/**
 * `shadowbook run --out DIR`: where a run's files go. An --out the files
 * could not be written to is refused before the run (so no run is wasted and
 * nothing is written); the files are written into a staging directory inside
 * --out and moved into place once all are written, summary.json and
 * report.html last, so a run whose files cannot all be written leaves no
 * report of a finished run. Both kinds of run write this way: one with
 * agents (writeRunOutputs) and a replay of recorded market data
 * (writeStaged with src/backtest/run.ts's writeReplayOutputs). A run with
 * agents streams its Arrow outputs into the staging directory while it
 * runs (prepareStaging before it); a run that fails or is interrupted
 * removes them (abandonStaging).
 */
import { existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmdirSync, rmSync, statSync, type Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { InputLogRecorder } from "../record/input-log.ts";
import { RUN_OUTPUT_FILES } from "../record/run-outputs.ts";
import type { RunOutputs } from "../report/write-run.ts";
import type { RunFigures } from "../sim/runner.ts";

/** The run's input log in --out. */
const INPUT_LOG_FILE = "inputs.arrow";
/** What reads as a finished run's report: moved into --out last, once everything else is there. */
const FINISHED_FILES = ["summary.json", "report.html"];
/** Every file `run --out DIR` writes into DIR. */
const OUT_FILES = [...RUN_OUTPUT_FILES.map((name) => `${name}.arrow`), INPUT_LOG_FILE, ...FINISHED_FILES];
/** The staging directory inside --out (this, then the process id). */
export const STAGING_PREFIX = ".shadowbook-partial-";

/** The stats of the link itself at `path`, or undefined when nothing is there. */
function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Makes `dir` and its missing parents one at a time, top down. Not
 * `mkdirSync(dir, { recursive: true })`: Node's retries it forever where a
 * parent refuses new entries with ENOENT (under /proc), where this fails at
 * once.
 */
function makeDirectories(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing.reverse()) mkdirSync(path);
}

/** The stats of `path`, or undefined when nothing is there (or it cannot be seen). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Refuses an `--out` the run's files could not be written to, before the run
 * (so no run is wasted and nothing is written): empty, a file or under one,
 * or holding a directory where the run writes one of `files` (default: those
 * of a run with agents).
 */
export function checkOutDir(out: string, files: readonly string[] = OUT_FILES): void {
  if (out === "") throw new Error(`--out "" is empty: give the directory to write the run's files to`);
  const target = resolve(out);
  for (let dir = target; ; dir = dirname(dir)) {
    const stat = statOf(dir);
    if (stat === undefined && lstatOf(dir)?.isSymbolicLink() === true) {
      const where = dir === target ? `--out "${out}"` : `--out "${out}": "${dir}"`;
      throw new Error(`${where} is a symbolic link to "${readlinkSync(dir)}", which does not exist`);
    }
    if (stat !== undefined) {
      if (!stat.isDirectory()) throw new Error(dir === target ? `--out "${out}" is a file, not a directory` : `--out "${out}": "${dir}" is a file, not a directory`);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  for (const name of files) {
    if (statOf(join(out, name))?.isDirectory() === true) throw new Error(`--out "${out}": ${name} there is a directory, not a file the run can write`);
  }
}

/** Why writing into --out failed, from a file system error's code. */
const WRITE_FAILURES: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EISDIR: "a file it writes is a directory there",
  ENOTDIR: "a directory in its path is a file",
  ENOENT: "a directory in its path cannot be made there",
  EEXIST: "it is a file, not a directory",
};

/** The staging directory of this process inside `out`. */
export function stagingDir(out: string): string {
  return join(out, `${STAGING_PREFIX}${process.pid}`);
}

/**
 * A staging directory made ready before a run whose files are written into
 * it while it runs (a run with agents streams its Arrow outputs there):
 * `created` says whether `out` was made for it, so that a failure removes
 * it again (abandonStaging).
 */
export interface Staging {
  readonly out: string;
  readonly dir: string;
  readonly created: boolean;
}

/**
 * Makes this process's staging directory in `out` ready (empty: a crashed
 * run with the same process id may have left one), noting first whether
 * `out` exists. A failure to make it is reworded naming --out.
 */
export function prepareStaging(out: string): Staging {
  const dir = stagingDir(out);
  const staging = { out, dir, created: !existsSync(out) };
  try {
    rmSync(dir, { recursive: true, force: true });
    makeDirectories(dir);
  } catch (error) {
    abandonStaging(staging);
    throw outFailure(out, error);
  }
  return staging;
}

/** Where a run with agents streams its input log (inputs.arrow) in the staging directory. */
export function stagedInputLogPath(staging: Staging): string {
  return join(staging.dir, INPUT_LOG_FILE);
}

/** After a failure: removes the staging directory, and `out` when it was made for the run and holds nothing else. */
export function abandonStaging(staging: Staging): void {
  try {
    rmSync(staging.dir, { recursive: true, force: true });
    if (staging.created) rmdirSync(staging.out); // only when empty: nothing of the run was moved there
  } catch {
    // Nothing to remove, or `out` holds what was moved before the failure: the failure's own message says more.
  }
}

/** A file system failure of writing into --out, reworded naming --out (ENOSPC, EACCES, ...); any other error as it is. */
export function outFailure(out: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = code === undefined ? undefined : WRITE_FAILURES[code];
  return why === undefined ? error : new Error(`--out "${out}" cannot be written: ${why} (${code})`, { cause: error });
}

export interface StagedWriteOptions {
  /** Every file the run writes into `out`, checked again before writing (checkOutDir; default: those of a run with agents). */
  readonly files?: readonly string[];
  /** The staging directory, when it was prepared before the run (prepareStaging) and may hold its files; default: stagingDir(out), cleared first. */
  readonly staging?: Staging;
}

/**
 * Writes a run's files through a staging directory inside `out`: `write`
 * writes them into the staging directory it is given and returns their
 * paths; they are then moved into `out` in that order, except summary.json
 * and report.html (what reads as a finished run), which go last. A run
 * whose files cannot all be written leaves no summary or report that looks
 * like a finished run's (nor the staging directory, nor an `out` it
 * created), and a file system failure is reworded naming --out (ENOSPC,
 * EACCES, ...). Returns the paths in `out`, in the order moved.
 */
export async function writeStaged(out: string, write: (staging: string) => readonly string[] | Promise<readonly string[]>, options: StagedWriteOptions = {}): Promise<string[]> {
  checkOutDir(out, options.files); // again: the directory may have changed while the run ran
  const staging = options.staging ?? prepareStaging(out);
  try {
    const written = await write(staging.dir);
    const finished = written.filter((file) => FINISHED_FILES.includes(basename(file)));
    const staged = [...written.filter((file) => !finished.includes(file)), ...finished];
    const files = staged.map((file) => {
      const moved = join(out, basename(file));
      renameSync(file, moved);
      return moved;
    });
    rmSync(staging.dir, { recursive: true, force: true });
    return files;
  } catch (error) {
    abandonStaging(staging);
    throw outFailure(out, error);
  }
}

/**
 * Writes the files of a run with agents through `staging` (writeStaged):
 * the Arrow files and the input log (both streamed there during the run)
 * first, summary.json and report.html last. `outputs` must write into
 * `staging.dir` (createRunOutputs(staging.dir, { stream: true })), and
 * `inputLog` stream to stagedInputLogPath(staging).
 */
export async function writeRunOutputs(out: string, staging: Staging, outputs: RunOutputs, inputLog: InputLogRecorder, figures: RunFigures): Promise<{ table: string; files: string[] }> {
  let table = "";
  const files = await writeStaged(
    out,
    async () => {
      const written = await outputs.finish(figures);
      table = written.table;
      inputLog.write();
      return [...written.files, stagedInputLogPath(staging)];
    },
    { files: OUT_FILES, staging },
  );
  return { table, files };
}
