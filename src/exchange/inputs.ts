/**
 * Every input of the Exchange, as data. Whatever drives the Exchange (the
 * simulator, the live servers, a replay) hands it these through one entry
 * point, `Exchange.handle(input, atMicros)`, so a log of (time, input) pairs
 * is enough to replay any run to the same bytes. Timers are not inputs: the
 * Exchange schedules them itself and they fire deterministically as time is
 * advanced to each input.
 */
import type { OrderEntryOperation } from "../spec/exec-envelopes.ts";

export type { OrderEntryOperation };

/** An order-entry request body as a client sent it (REST or WebSocket: the same body). */
export interface RequestInput {
  kind: "request";
  op: OrderEntryOperation;
  body: unknown;
}

/** Oracle feeds: an asset's index price, or a perp symbol's exchange-mark oracle (a spot symbol sets its base asset's index). */
export interface PriceInput {
  kind: "prices";
  prices: readonly { asset?: string; symbol?: string; price: string }[];
}

export type AdminAction =
  | { action: "createAccount"; wallet: string; accountId?: number; deposits?: Readonly<Record<string, string>> }
  | { action: "deposit"; accountId: number; asset: string; amount: string }
  | { action: "withdraw"; accountId: number; asset: string; amount: string }
  | { action: "transfer"; fromAccountId: number; toAccountId: number; asset: string; amount: string }
  | { action: "addSigner"; accountId: number; signer: string }
  | { action: "assetStatus"; asset: string; status: "ENABLED" | "WITHDRAWAL_ONLY" }
  | {
      action: "market";
      symbol: string;
      halted?: boolean;
      reopening?: boolean;
      settlementPaused?: boolean;
      orderEntryDisabled?: boolean;
      closed?: boolean;
      settlementPrice?: string;
    }
  | {
      action: "wallet";
      wallet: string;
      whitelisted?: boolean;
      suspended?: boolean;
      rateTier?: number;
      feeTierId?: number;
      og?: boolean;
      affiliate?: boolean;
      referrer?: string;
    };

export interface AdminInput {
  kind: "admin";
  admin: AdminAction;
}

/** Faults on demand (each a window from the input's time, or a count). */
export type FaultAction =
  | { fault: "bustNext"; count: number; reasonName: string }
  | { fault: "bustProbability"; probability: number }
  | { fault: "delayBlocks"; durationMs: number }
  | { fault: "engineUnavailable"; durationMs: number }
  | { fault: "accountOwnerUnavailable"; durationMs: number }
  | { fault: "serviceDisabled"; durationMs: number }
  | { fault: "oracleStale"; durationMs: number }
  | { fault: "dropResponses"; count: number };

export interface FaultInput {
  kind: "fault";
  fault: FaultAction;
}

export type ExchangeInput = RequestInput | PriceInput | AdminInput | FaultInput;
