/**
 * The install step of `npm ci` (package.json "install"): builds the add-on
 * native/secp256k1-comb (the comb verifier and a keccak256) with node-gyp
 * (npm's own copy, against the headers npm is configured with). It is
 * optional: when the build fails (no compiler, another platform), this says
 * so and the install goes on; signatures are then recovered every time
 * (src/signing/known-signers.ts) and hashed by the `keccak` package's
 * sponge (src/signing/native.ts), with the same answers.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const directory = fileURLToPath(new URL("../native/secp256k1-comb/", import.meta.url));
const nodeGyp = process.env["npm_config_node_gyp"];
const command = nodeGyp === undefined ? ["node-gyp", ["rebuild"]] : [process.execPath, [nodeGyp, "rebuild"]];
const result = spawnSync(command[0], command[1], { cwd: directory, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
if (result.status === 0) {
  console.log("shadowbook: built the comb signature verifier (native/secp256k1-comb)");
} else {
  const why = result.error?.message ?? (result.stderr ?? "").trim().split("\n").slice(-3).join(" / ");
  console.log(`shadowbook: the comb signature verifier did not build (${why}); signatures will be recovered every time, and hashed by the keccak package`);
}
