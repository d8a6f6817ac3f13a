/** Helpers shared by the tests of the signer cache (known-signers.test.ts, confirm-later.test.ts). */
import type { KnownSigners } from "../../src/signing/known-signers.ts";

/** Waits (up to ~2 s) until every table `signers` asked for is built; the tests then assert on what is ready. */
export async function tablesBuilt(signers: KnownSigners): Promise<void> {
  for (let i = 0; i < 200 && signers.stats().tablesReady < signers.stats().tables; i++) await new Promise((resolve) => setTimeout(resolve, 10));
}
