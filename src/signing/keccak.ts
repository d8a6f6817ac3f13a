/**
 * The two forms of keccak256 the fast path uses, and the one made from the
 * other: the hasher (digest.ts) writes each hash into the buffer the next
 * hash reads, and a keccak that only returns fresh Buffers (the `keccak`
 * package's) is given that form by copying.
 */

/** keccak256 of a byte string, into a fresh 32-byte Buffer. */
export type Keccak256 = (data: Uint8Array) => Buffer;
/** keccak256 of all of `data`, written into output[offset, offset + 32). */
export type Keccak256Into = (data: Uint8Array, output: Uint8Array, offset: number) => void;

/** The writing form of a keccak that returns fresh Buffers: it copies each hash into place. */
export function copyingKeccak256Into(keccak256: Keccak256): Keccak256Into {
  return (data: Uint8Array, output: Uint8Array, offset: number): void => {
    output.set(keccak256(data), offset);
  };
}
