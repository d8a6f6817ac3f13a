/**
 * Pagination of the wallet history listings (spec 2.13, 4.1).
 */
import { z } from "zod";
import { UnsignedInteger } from "./scalars.ts";

/**
 * Spec 2.13 PaginationMeta. The spec shows only `nextCursor` (an opaque
 * cursor, used by the transfers listing). shadowbook's choice, like a real
 * venue's paged listing: it also echoes the effective filters of the request,
 * `startTime` and `endTime` (ms, inclusive) and `limit` (rows per page). All
 * fields are optional; an absent nextCursor means there is no further page.
 */
export const PaginationMeta = z
  .looseObject({
    nextCursor: z.string().exactOptional(),
    startTime: UnsignedInteger.exactOptional(),
    endTime: UnsignedInteger.exactOptional(),
    limit: UnsignedInteger.exactOptional(),
  })
  .meta({ id: "PaginationMeta" });
export type PaginationMeta = z.infer<typeof PaginationMeta>;
