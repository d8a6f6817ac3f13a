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
 *   builds are outside them). A symbolic link counts as what it points to;
 *   one that points nowhere, a folder reached twice (a link loop), and a
 *   file that vanishes while it is read are left out, never an error: the
 *   identity is provenance, and no run fails for it.
 * - The installed version of each of package.json's `dependencies`
 *   (decimal.js, apache-arrow, viem, ... decide outputs too), as
 *   `name@version`, read from the package.json Node would load it from
 *   (the nearest `node_modules/<name>` up from the package root), or
 *   `name@missing`. What is installed rather than package-lock.json's text:
 *   a checkout whose node_modules lags its lock file runs the installed
 *   versions, and a packed or installed copy, which has no lock file, gets
 *   the identity of the same commit. Then their own `dependencies`, and
 *   theirs, each resolved as Node would from the folder of the package
 *   that asks for it, each installed package once: a transitive dependency
 *   that moved (a floating range in a fresh install of a copy) moves the
 *   identity too, while a package of node_modules that nothing here reaches
 *   does not. A missing one is `name@missing`. Not `optionalDependencies`:
 *   they are mostly builds for one platform (esbuild's), which would give
 *   the same code another identity on each platform.
 * - The replay identity (`replayId`, `shadowbook.replayCode` in a log): the
 *   same over `src/` and the dependencies alone, without `agents/`. A
 *   replay re-runs a log's inputs through the Exchange and runs no agent, so
 *   a log whose identity differs from this code's only in agents/ replays
 *   as under the same code (replay says so).
 * - Not scenarios/ (a run's scenario is an input, named in the log, and
 *   may be any file), nor the native comb verifier (it must accept exactly
 *   what viem accepts), nor tests, docs or data.
 *
 * How: the files sorted by their path relative to the package root (with
 * "/", compared by code unit, not by locale), each hashed as its path, its
 * length and its bytes (CRLF read as LF, so a Windows checkout of the same
 * commit has the same identity), then the dependency closure in name
 * order, into one SHA-256, of which the first 12 hex digits are kept. About
 * 250 files, 2.2 MB, and ~125 installed packages' package.json: 50-60 ms on
 * these machines, once per process (codeIdentity), when a log or summary is
 * begun; a string after that.
 *
 * A driver module (it reads files): the deterministic core never sees the
 * identity, and the recorders and reports, drivers themselves, take it as a
 * plain string (defaulting to this process's).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The number of hex digits of the content hash kept in an identity. */
export const CODE_HASH_DIGITS = 12;

/** The folders (relative to the package root) whose source files are hashed. */
export const HASHED_FOLDERS = ["src", "agents"] as const;

/** The folder whose files (with the dependencies) make the replay identity: what a replay runs. */
export const REPLAYED_FOLDER = "src";

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
  /** `<version>+<hash>` over REPLAYED_FOLDER and the dependencies only: the code a replay runs. */
  readonly replayId: string;
  /** The files hashed, relative to the root with "/", sorted. */
  readonly files: readonly string[];
  /** The direct dependencies, `name@version` (or `name@missing`), sorted by name. */
  readonly dependencies: readonly string[];
  /** Every installed package they reach, themselves included, `name@version`, sorted and each once: what is hashed. */
  readonly dependencyClosure: readonly string[];
}

/** What a path is, following links; undefined when it cannot be told (a link to nothing, a loop, gone). */
function kindOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Source files under `folder` (relative to `root`, "/"-separated),
 * recursively, unsorted. `visited` holds the real paths of the folders
 * walked, so that a link back up the tree ends.
 */
function sourceFilesUnder(root: string, folder: string, into: string[], visited: Set<string>): void {
  let real: string;
  let entries;
  try {
    real = realpathSync(join(root, folder));
    entries = readdirSync(real, { withFileTypes: true });
  } catch {
    return; // no such folder (a copy without agents/, say), or one that went away
  }
  if (visited.has(real)) return;
  visited.add(real);
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = `${folder}/${entry.name}`;
    const stats = entry.isSymbolicLink() ? kindOf(join(root, path)) : entry;
    if (stats === undefined) continue;
    if (stats.isDirectory()) sourceFilesUnder(root, path, into, visited);
    else if (stats.isFile() && SOURCE_FILE.test(entry.name)) into.push(path);
  }
}

/** The bytes of a text file as hashed: CRLF line ends read as LF. */
function normalized(bytes: Buffer): Buffer {
  if (!bytes.includes(13)) return bytes;
  return Buffer.from(bytes.toString("latin1").replace(/\r\n/g, "\n"), "latin1");
}

/** The bytes of a file, or undefined when it cannot be read (gone since it was listed). */
function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** An installed package as Node would load it: its folder, version and the names it depends on. */
interface InstalledPackage {
  readonly folder: string;
  readonly version: string;
  readonly requires: readonly string[];
}

/** The names of a package.json's dependency map (none when it has no such map). */
function namesOf(map: unknown): string[] {
  return typeof map === "object" && map !== null ? Object.keys(map) : [];
}

/** `name` as Node would load it from `from`: the nearest node_modules/<name>/package.json up the tree; undefined when none. */
function installedPackage(from: string, name: string): InstalledPackage | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const folder = join(dir, "node_modules", name);
    const text = readOrUndefined(join(folder, "package.json"));
    if (text !== undefined) {
      try {
        const json = JSON.parse(text.toString("utf8")) as { version?: unknown; dependencies?: unknown };
        const version = typeof json.version === "string" ? json.version : "unversioned";
        return { folder, version, requires: namesOf(json.dependencies) };
      } catch {
        return { folder, version: "unreadable", requires: [] };
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The installed closure of `declared` (the root's dependencies) through
 * each package's own `dependencies`, as `name@version`, sorted, each once;
 * a package not installed is `name@missing` (see above).
 */
function dependencyClosureOf(root: string, declared: readonly string[]): string[] {
  const found = new Set<string>();
  const visited = new Set<string>();
  const queue: { from: string; name: string }[] = declared.map((name) => ({ from: root, name }));
  while (queue.length > 0) {
    const { from, name } = queue.pop()!;
    const installed = installedPackage(from, name);
    found.add(`${name}@${installed?.version ?? "missing"}`);
    if (installed === undefined || visited.has(installed.folder)) continue;
    visited.add(installed.folder);
    for (const next of installed.requires) queue.push({ from: installed.folder, name: next });
  }
  return [...found].sort(byCodeUnit);
}

/**
 * The identity of the package at `root` (a folder with package.json): its
 * version and the hash of its source files under HASHED_FOLDERS and of its
 * installed dependencies (see above). Reads the files every call;
 * codeIdentity() is this process's, once.
 */
export function computeCodeIdentity(root: string): CodeIdentity {
  const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown; dependencies?: unknown };
  const version = typeof packageJson.version === "string" ? packageJson.version : "0.0.0";
  const listed: string[] = [];
  const visited = new Set<string>();
  for (const folder of HASHED_FOLDERS) sourceFilesUnder(root, folder, listed, visited);
  listed.sort(byCodeUnit);
  const hash = createHash("sha256");
  const replayHash = createHash("sha256");
  const files: string[] = [];
  for (const path of listed) {
    const bytes = readOrUndefined(join(root, path));
    if (bytes === undefined) continue;
    const text = normalized(bytes);
    const header = `${path}\0${text.length}\0`;
    hash.update(header);
    hash.update(text);
    if (path.startsWith(`${REPLAYED_FOLDER}/`)) {
      replayHash.update(header);
      replayHash.update(text);
    }
    files.push(path);
  }
  const declared = typeof packageJson.dependencies === "object" && packageJson.dependencies !== null ? Object.keys(packageJson.dependencies).sort(byCodeUnit) : [];
  const dependencies = declared.map((name) => `${name}@${installedPackage(root, name)?.version ?? "missing"}`);
  const dependencyClosure = dependencyClosureOf(root, declared);
  const dependencyText = `dependencies\0${dependencyClosure.join("\0")}\0`;
  hash.update(dependencyText);
  replayHash.update(dependencyText);
  const digits = hash.digest("hex").slice(0, CODE_HASH_DIGITS);
  const replayDigits = replayHash.digest("hex").slice(0, CODE_HASH_DIGITS);
  return { id: `${version}+${digits}`, version, hash: digits, replayId: `${version}+${replayDigits}`, files, dependencies, dependencyClosure };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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

/** This process's replay identity (src/ and the dependencies, without agents/), as logs carry it. */
export function replayCodeIdentity(): string {
  return runningCode().replayId;
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
