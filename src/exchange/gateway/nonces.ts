/**
 * Nonces: one strictly increasing counter per signer, shared by all five
 * order-entry operations (reference/signing.md). A nonce not greater than the
 * signer's highest accepted one, or zero, is refused; a request rejected for
 * any reason does not consume its nonce (`accept` runs only on success).
 */
export type NonceCheck = { ok: true; nonce: bigint } | { ok: false; message: string };

export class NonceBook {
  /**
   * By lowercase signer. A lowercase signer (the gateway's always are) finds
   * its entry as it is; only a text that misses is lowercased (a mixed-case
   * one cannot equal a key), which spares a copy of the address per call.
   */
  private readonly highest = new Map<string, bigint>();

  check(signer: string, nonceText: string): NonceCheck {
    if (!/^\d+$/.test(nonceText)) return { ok: false, message: `nonce "${nonceText}" is not a decimal integer` };
    return this.checkValue(signer, BigInt(nonceText));
  }

  /** `check` of a nonce already parsed from its decimal text (a validated request carries it), without parsing it again. */
  checkValue(signer: string, nonce: bigint): NonceCheck {
    if (nonce === 0n) return { ok: false, message: 'nonce "0" is not allowed: nonces start above 0' };
    const last = this.lastAccepted(signer);
    if (last !== undefined && nonce <= last) {
      return { ok: false, message: `nonce ${nonce} is not greater than the last accepted nonce ${last} of signer ${signer}` };
    }
    return { ok: true, nonce };
  }

  accept(signer: string, nonce: bigint): void {
    const known = this.highest.get(signer);
    const id = known === undefined ? signer.toLowerCase() : signer;
    const last = known ?? this.highest.get(id);
    if (last === undefined || nonce > last) this.highest.set(id, nonce);
  }

  /** The highest accepted nonce of a signer (0 when none). */
  last(signer: string): bigint {
    return this.lastAccepted(signer) ?? 0n;
  }

  private lastAccepted(signer: string): bigint | undefined {
    return this.highest.get(signer) ?? this.highest.get(signer.toLowerCase());
  }
}
