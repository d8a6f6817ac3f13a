/**
 * The structure stage of the order-entry gateway (the first of its five
 * stages: structure; signature and permissions; nonce and deadline; rate
 * limits and open-order caps; market rules): one validator per operation.
 * Each takes any JSON value as the body, never throws on it, and answers
 * either the typed, normalized request or the RequestError that rejects it.
 */
export { validateCreateOrder } from "./create-order.ts";
export { validateModifyOrder } from "./modify-order.ts";
export { validateCancelOrder } from "./cancel-order.ts";
export { validateCancelAll } from "./cancel-all.ts";
export { validateCancelAllAfter } from "./cancel-all-after.ts";
