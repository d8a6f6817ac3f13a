/** EIP-712 signing of the order-entry operations: types, message builders, signers, verification. */
export * from "./domain.ts";
export * from "./types.ts";
export * from "./wire.ts";
export * from "./messages.ts";
export * from "./signature.ts";
export { MessageFieldError, createTypedDataHasher, type TypedDataHasher } from "./digest.ts";
export { native, type NativeCrypto, type Keccak256 } from "./native.ts";
export * from "./sign.ts";
export * from "./fast-sign.ts";
export * from "./verify.ts";
