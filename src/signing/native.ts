/**
 * The native crypto of the fast path: libsecp256k1 (package `secp256k1`) and
 * the XKCP Keccak sponge (package `keccak`), loaded once.
 *
 * Both packages are CommonJS and quietly fall back to pure JavaScript when
 * their add-on does not load (`secp256k1` to elliptic, `keccak` to a JS
 * sponge). The fast path is only worth having with the add-ons, so they are
 * loaded through their `bindings` entry points, which throw instead; when
 * either throws, `native` is null and verification uses viem.
 *
 * Keccak: the package's public API builds a readable-stream Transform per
 * hash (about 6 us for a 480-byte input on the development machine, against
 * about 4 us for the bare sponge), and a verification hashes four times. So
 * one sponge of the add-on is reused instead: its class is what the
 * package's own `bindings.js` wraps, reached through the package's own
 * `node-gyp-build`. The sponge is checked against known digests at load;
 * if anything about it differs, the public API is used.
 *
 * Faster still, when shadowbook's own add-on is built (addon.ts): its
 * keccak256 (the same XKCP sources) is one call that writes the hash into
 * the caller's buffer, ~0.5-0.8 µs for a one-block input against ~2-3 µs
 * for the sponge's three calls and fresh Buffer. It is checked against the
 * same known digests.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { ADDON } from "./addon.ts";
import { copyingKeccak256Into, type Keccak256, type Keccak256Into } from "./keccak.ts";

export type { Keccak256, Keccak256Into } from "./keccak.ts";

/** The libsecp256k1 calls the fast path makes (a subset of @types/secp256k1). */
export interface Secp256k1Native {
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean, output: Uint8Array): Uint8Array;
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array;
  privateKeyVerify(privateKey: Uint8Array): boolean;
}

export interface NativeCrypto {
  readonly secp256k1: Secp256k1Native;
  readonly keccak256: Keccak256;
  /** The same hash written into a buffer of the caller's (no Buffer made). */
  readonly keccak256Into: Keccak256Into;
  /** "addon" for shadowbook's add-on, "sponge" when the `keccak` package's sponge is reused, "api" for its public API. */
  readonly keccakVia: "addon" | "sponge" | "api";
}

/** The add-on's sponge (keccak/src/addon.cc). */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}
type KeccakSpongeClass = new () => KeccakSponge;
type KeccakHashFactory = (algorithm: "keccak256") => { update(data: Buffer): { digest(): Buffer } };

const require = createRequire(import.meta.url);

/** keccak256 rate and capacity in bits (the package's own values for "keccak256"). */
const KECCAK256_RATE = 1088;
const KECCAK256_CAPACITY = 512;

const KNOWN_DIGESTS: readonly { input: Buffer; digest: string }[] = [
  { input: Buffer.alloc(0), digest: "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470" },
  // Longer than one 136-byte block, to cover absorbing across blocks.
  { input: Buffer.alloc(200, 0x61), digest: "96ea54061def936c4be90b518992fdc6f12f535068a256229aca54267b4d084d" },
];

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function spongeKeccak(): Keccak256 | null {
  try {
    const keccakDir = dirname(require.resolve("keccak/package.json"));
    const keccakRequire = createRequire(require.resolve("keccak/bindings"));
    const nodeGypBuild = keccakRequire("node-gyp-build") as (dir: string) => unknown;
    const Sponge = nodeGypBuild(keccakDir);
    if (typeof Sponge !== "function") return null;
    const sponge = new (Sponge as KeccakSpongeClass)();
    return (data: Uint8Array): Buffer => {
      sponge.initialize(KECCAK256_RATE, KECCAK256_CAPACITY);
      sponge.absorb(asBuffer(data));
      return sponge.squeeze(32);
    };
  } catch {
    return null;
  }
}

function apiKeccak(createHash: KeccakHashFactory): Keccak256 {
  return (data: Uint8Array): Buffer => createHash("keccak256").update(asBuffer(data)).digest();
}

function computesKnownDigests(keccak256: Keccak256): boolean {
  return KNOWN_DIGESTS.every(({ input, digest }) => keccak256(input).toString("hex") === digest);
}

/** The add-on's keccak256, when it is there and computes the known digests. */
function addonKeccakInto(): Keccak256Into | null {
  const into = ADDON?.["keccak256"];
  if (typeof into !== "function") return null;
  const keccak256Into = into as Keccak256Into;
  try {
    return computesKnownDigests(intoFresh(keccak256Into)) ? keccak256Into : null;
  } catch {
    return null;
  }
}

function intoFresh(keccak256Into: Keccak256Into): Keccak256 {
  return (data: Uint8Array): Buffer => {
    const output = Buffer.allocUnsafe(32);
    keccak256Into(data, output, 0);
    return output;
  };
}

function load(): NativeCrypto | null {
  try {
    const secp256k1 = require("secp256k1/bindings") as Secp256k1Native;
    if (!secp256k1.privateKeyVerify(Buffer.alloc(32, 1)) || secp256k1.privateKeyVerify(Buffer.alloc(32, 0xff))) return null;
    const createHash = require("keccak/bindings") as KeccakHashFactory;
    const viaApi = apiKeccak(createHash);
    if (!computesKnownDigests(viaApi)) return null;
    const viaAddon = addonKeccakInto();
    if (viaAddon !== null) {
      return Object.freeze({ secp256k1, keccak256: intoFresh(viaAddon), keccak256Into: viaAddon, keccakVia: "addon" as const });
    }
    const viaSponge = spongeKeccak();
    if (viaSponge !== null && computesKnownDigests(viaSponge)) {
      return Object.freeze({ secp256k1, keccak256: viaSponge, keccak256Into: copyingKeccak256Into(viaSponge), keccakVia: "sponge" as const });
    }
    return Object.freeze({ secp256k1, keccak256: viaApi, keccak256Into: copyingKeccak256Into(viaApi), keccakVia: "api" as const });
  } catch {
    return null;
  }
}

/** The native crypto, or null when either add-on failed to load. */
export const native: NativeCrypto | null = load();
