/**
 * Order-book depth (spec 2.17 and 6.2): the REST bounded view and the
 * messages of the depth channel.
 */
import { z } from "zod";
import { DepthType } from "./enums.ts";
import { MarketSymbol, UnsignedDecimal, UnsignedInteger } from "./scalars.ts";

/**
 * One price level. In an UPDATE, `qty` is the level's new absolute quantity
 * and "0" removes it. The spec types px and qty as "string"; they take the
 * UnsignedDecimal pattern.
 */
export const DepthLevel = z
  .looseObject({
    px: UnsignedDecimal,
    qty: UnsignedDecimal,
  })
  .meta({ id: "DepthLevel" });
export type DepthLevel = z.infer<typeof DepthLevel>;

/**
 * Spec 2.17 depth of one market. Bids are sorted by descending price and
 * asks by ascending price; that ordering is the publisher's invariant and is
 * not checked here (it needs decimal comparison, not structure). updatedAt is
 * the exchange time (ms) of the market's latest depth change.
 */
export const Depth = z
  .looseObject({
    symbol: MarketSymbol,
    type: DepthType,
    bids: z.array(DepthLevel),
    asks: z.array(DepthLevel),
    updatedAt: UnsignedInteger,
  })
  .meta({ id: "Depth" });
export type Depth = z.infer<typeof Depth>;

/** The `contents` of a depth subscription: a full SNAPSHOT (spec 6.2). */
export const DepthSnapshot = Depth.extend({ type: z.literal("SNAPSHOT") }).meta({ id: "DepthSnapshot" });
export type DepthSnapshot = z.infer<typeof DepthSnapshot>;
