/** Order-entry request validation: structure, deadlines and market rules (see each module). */
export * from "./types.ts";
export * from "./structure.ts";
export { checkDeadline, isDeadlineCapped, type DeadlineSubject } from "./deadline.ts";
export { checkGrid, type GridSubject, type GridUnits } from "./market-rules.ts";
export { VALIDATION_ERROR_CODES, type ValidationFunctionName } from "./codes.ts";
