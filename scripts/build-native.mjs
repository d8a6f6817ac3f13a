/**
 * The install step of `npm ci` (package.json "install"): builds the add-on
 * native/secp256k1-comb (the comb verifier and a keccak256) with node-gyp
 * (npm's own copy, against the headers npm is configured with). It is
 * optional: when the build fails (no compiler, another platform), this says
 * so and the install goes on; signatures are then recovered every time
 * (src/signing/known-signers.ts) and hashed by the `keccak` package's
 * sponge (src/signing/native.ts), with the same answers.
 *
 * An add-on built from the same inputs is kept: the build writes a stamp
 * (build/inputs.json: Node's module ABI, platform and architecture, the
 * SHA-256 of comb.c and binding.gyp, the versions of the `secp256k1` and
 * `keccak` packages whose sources it compiles, whether GMP is there), and a
 * later run whose inputs are the same skips node-gyp. npm runs this script
 * again the first time `npx shadowbook` runs in a checkout (npx links the
 * project into its cache and runs its install script): without the stamp,
 * that first command rebuilt the add-on (10-30 s, and meanwhile other
 * processes of the checkout could not load it). `SHADOWBOOK_REBUILD_NATIVE=1`,
 * or deleting native/secp256k1-comb/build, forces a build.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const directory = fileURLToPath(new URL("../native/secp256k1-comb/", import.meta.url));
const addon = `${directory}build/Release/comb.node`;
const stampPath = `${directory}build/inputs.json`;

/** What the add-on is built from, as one canonical text. */
function inputs() {
  const require = createRequire(import.meta.url);
  const sha256 = (file) => createHash("sha256").update(readFileSync(`${directory}${file}`)).digest("hex");
  const version = (name) => {
    try {
      return require(`${name}/package.json`).version;
    } catch {
      return null;
    }
  };
  return JSON.stringify({
    modules: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
    comb: sha256("comb.c"),
    gyp: sha256("binding.gyp"),
    secp256k1: version("secp256k1"),
    keccak: version("keccak"),
    gmp: ["/usr/lib/x86_64-linux-gnu/libgmp.so", "/usr/include/x86_64-linux-gnu/gmp.h"].every(existsSync),
  });
}

const wanted = inputs();
const built = existsSync(addon) && existsSync(stampPath) ? readFileSync(stampPath, "utf8") : null;
if (built === wanted && process.env["SHADOWBOOK_REBUILD_NATIVE"] !== "1") {
  console.log("shadowbook: the comb signature verifier is built and up to date (native/secp256k1-comb)");
  process.exit(0);
}

const nodeGyp = process.env["npm_config_node_gyp"];
const command = nodeGyp === undefined ? ["node-gyp", ["rebuild"]] : [process.execPath, [nodeGyp, "rebuild"]];
const result = spawnSync(command[0], command[1], { cwd: directory, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
if (result.status === 0) {
  writeFileSync(stampPath, wanted);
  console.log("shadowbook: built the comb signature verifier (native/secp256k1-comb)");
} else {
  const why = result.error?.message ?? (result.stderr ?? "").trim().split("\n").slice(-3).join(" / ");
  console.log(`shadowbook: the comb signature verifier did not build (${why}); signatures will be recovered every time, and hashed by the keccak package`);
}
