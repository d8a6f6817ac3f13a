/**
 * The code identity: which code recorded an input log (`shadowbook.code` in
 * its schema metadata, input-log.ts) or wrote a summary.json, as
 * `<package version>+<12 hex digits>`, e.g. "0.1.0+3f2a9c1b7e40". A replay
 * that diverges says whether the log was recorded by other code
 * (src/cli/replay.ts): a divergence under the same code is a determinism bug
 * (or another Node major version, DESIGN.md), under other code it may be the
 * code change itself.
 *
 * What it covers: what decides a run's outputs given its inputs.
 * - Every source file (`.ts`, `.mts`, `.cts`, `.js`, `.mjs`, `.cjs`, `.json`)
 *   under `src/` and `agents/` of the package this module belongs to, found
 *   from this module's own location (import.meta.url: the repository's
 *   `src/record/`, or an installed copy's), not the working directory. The
 *   files that exist, not git's index: an installed copy has no .git, and a
 *   file edited but not committed is the code that runs. Entries whose name
 *   starts with "." (editors' lock and swap files, such as Emacs's
 *   `.#engine.ts`) and `node_modules` folders are skipped; nothing
 *   generated lives under src/ or agents/ (runs/, node_modules/ and native
 *   builds are outside them).
 * - package-lock.json (the dependencies' exact versions: decimal.js,
 *   apache-arrow, viem, ... decide outputs too), when present; a copy
 *   without one hashes a fixed marker instead.
 * - Not scenarios/ (a run's scenario is an input, named in the log, and
 *   may be any file), nor the native comb verifier (it must accept exactly
 *   what viem accepts), nor tests, docs or data.
 *
 * How: the files sorted by their path relative to the package root (with
 * "/", compared by code unit, not by locale), each hashed as its path, its
 * length and its bytes (CRLF read as LF, so a Windows checkout of the same
 * commit has the same identity) into one SHA-256, of which the first 12 hex
 * digits are kept. About 250 files, 2.7 MB: a few milliseconds, computed once
 * per process (codeIdentity) and then a string.
 *
 * A driver module (it reads files): the deterministic core never sees the
 * identity, and the recorders and reports, drivers themselves, take it as a
 * plain string (defaulting to this process's).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The number of hex digits of the content hash kept in an identity. */
export const CODE_HASH_DIGITS = 12;

/** The folders (relative to the package root) whose source files are hashed. */
export const HASHED_FOLDERS = ["src", "agents"] as const;

/** What counts as a source file in them. */
const SOURCE_FILE = /\.(?:[mc]?ts|[mc]?js|json)$/;

/** The package root of this module: `src/record/code-id.ts` is two folders down. */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CodeIdentity {
  /** `<version>+<hash>`: what logs and summaries carry. */
  readonly id: string;
  /** package.json's version. */
  readonly version: string;
  /** The first CODE_HASH_DIGITS hex digits of the content hash. */
  readonly hash: string;
  /** The files hashed, relative to the root with "/" (package-lock.json last when present). */
  readonly files: readonly string[];
}

/** Source files under `folder` (relative to `root`, "/"-separated), recursively, unsorted. */
function sourceFilesUnder(root: string, folder: string, into: string[]): void {
  let entries;
  try {
    entries = readdirSync(join(root, folder), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // a copy without agents/, say
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = `${folder}/${entry.name}`;
    // A symbolic link counts as what it points to.
    const isDirectory = entry.isSymbolicLink() ? statSync(join(root, path)).isDirectory() : entry.isDirectory();
    if (isDirectory) sourceFilesUnder(root, path, into);
    else if (SOURCE_FILE.test(entry.name)) into.push(path);
  }
}

/** The bytes of a text file as hashed: CRLF line ends read as LF. */
function normalized(bytes: Buffer): Buffer {
  if (!bytes.includes(13)) return bytes;
  return Buffer.from(bytes.toString("latin1").replace(/\r\n/g, "\n"), "latin1");
}

/**
 * The identity of the package at `root` (a folder with package.json): its
 * version and the hash of its source files under HASHED_FOLDERS and its
 * package-lock.json (see above). Reads the files every call; codeIdentity()
 * is this process's, once.
 */
export function computeCodeIdentity(root: string): CodeIdentity {
  const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
  const version = typeof packageJson.version === "string" ? packageJson.version : "0.0.0";
  const files: string[] = [];
  for (const folder of HASHED_FOLDERS) sourceFilesUnder(root, folder, files);
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  const add = (path: string, bytes: Buffer) => {
    hash.update(`${path}\0${bytes.length}\0`);
    hash.update(bytes);
  };
  for (const path of files) add(path, normalized(readFileSync(join(root, path))));
  let lock: Buffer | undefined;
  try {
    lock = normalized(readFileSync(join(root, "package-lock.json")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (lock === undefined) hash.update("no package-lock.json\0");
  else {
    add("package-lock.json", lock);
    files.push("package-lock.json");
  }
  const digits = hash.digest("hex").slice(0, CODE_HASH_DIGITS);
  return { id: `${version}+${digits}`, version, hash: digits, files };
}

let running: CodeIdentity | undefined;

/** This process's code identity (computeCodeIdentity of PACKAGE_ROOT), computed on first use. */
export function runningCode(): CodeIdentity {
  running ??= computeCodeIdentity(PACKAGE_ROOT);
  return running;
}

/** This process's code identity as logs carry it: "0.1.0+3f2a9c1b7e40". */
export function codeIdentity(): string {
  return runningCode().id;
}

/**
 * The major version of the Node.js that runs this process ("20"). The
 * determinism guarantee is per major version (DESIGN.md: same code,
 * scenario, seed and Node major version give the same fingerprint): V8's
 * Math functions and number formatting may change between majors. Input
 * logs record it beside the code (`shadowbook.node`), and replay says when
 * it differs. Only the major: a log's bytes do not depend on the patch level.
 */
export function nodeMajor(): string {
  return process.versions.node.split(".")[0]!;
}
