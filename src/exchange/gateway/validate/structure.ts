/**
 * The structure stage of the order-entry gateway (the first of its five
 * stages: structure; signature and permissions; nonce and deadline; rate
 * limits and open-order caps; market rules): one validator per operation.
 * Each takes any JSON value as the body, never throws on it, and answers
 * either the typed, normalized request or the RequestError that rejects it.
 */
import type { OrderEntryOperation } from "../../../spec/exec-envelopes.ts";
import { validateCancelAllAfter } from "./cancel-all-after.ts";
import { validateCancelAll } from "./cancel-all.ts";
import { validateCancelOrder } from "./cancel-order.ts";
import { validateCreateOrder } from "./create-order.ts";
import { validateModifyOrder } from "./modify-order.ts";
import type { Validation, ValidatedRequest, ValidationContext } from "./types.ts";

export { validateCancelAll, validateCancelAllAfter, validateCancelOrder, validateCreateOrder, validateModifyOrder };

/** The structure stage of any operation: its validator's answer. */
export function validateRequest(op: OrderEntryOperation, body: unknown, context: ValidationContext): Validation<ValidatedRequest> {
  switch (op) {
    case "createOrder":
      return validateCreateOrder(body, context);
    case "modifyOrder":
      return validateModifyOrder(body, context);
    case "cancelOrder":
      return validateCancelOrder(body, context);
    case "cancelAll":
      return validateCancelAll(body, context);
    case "cancelAllAfter":
      return validateCancelAllAfter(body, context);
  }
}
