/**
 * shadowbook's own add-on (native/secp256k1-comb, built by `npm ci`): the
 * comb verifier (known-signers.ts) and a keccak256 that writes into the
 * caller's buffer (native.ts). Loaded once; each user checks the calls it
 * needs, so a missing add-on (no compiler, `npm ci --ignore-scripts`) or
 * one built from older sources only turns that use off: the answers are
 * the same either way.
 */
import { createRequire } from "node:module";

/** The add-on's exports, each of which may be missing. */
export type AddonExports = Readonly<Record<string, unknown>>;

function loadAddon(): AddonExports | null {
  try {
    const require = createRequire(import.meta.url);
    return require("../../native/secp256k1-comb/build/Release/comb.node") as AddonExports;
  } catch {
    return null;
  }
}

/** The add-on's exports, or null when it was not built or does not load. */
export const ADDON: AddonExports | null = loadAddon();
