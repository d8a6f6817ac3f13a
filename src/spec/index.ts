/**
 * shadowbook's wire contract (trading service 3.5.2): zod schemas of every
 * wire shape with their inferred types, enumerations, error codes, channel
 * catalogue and published limits. Every schema has a registry id
 * (`z.globalRegistry`), the source of the served OpenAPI/AsyncAPI documents.
 */
export * from "./scalars.ts";
export * from "./enums.ts";
export * from "./errors.ts";
export * from "./market.ts";
export * from "./depth.ts";
export * from "./pagination.ts";
export * from "./order.ts";
export * from "./execution.ts";
export * from "./bust.ts";
export * from "./account.ts";
export * from "./requests.ts";
export * from "./responses.ts";
export * from "./exec-envelopes.ts";
export * from "./stream-envelopes.ts";
export * from "./channels.ts";
export * from "./channel-parse.ts";
export * from "./close-codes.ts";
export * from "./limits.ts";
