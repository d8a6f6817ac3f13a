export * from "./assert.ts";
export * from "./decimal.ts";
export * from "./event-queue.ts";
export * from "./fingerprint.ts";
export * from "./ids.ts";
export * from "./rng.ts";
export * from "./scheduler.ts";
export * from "./time.ts";
