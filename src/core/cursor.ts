/**
 * Opaque page cursors of the REST listings (transfers, orderHistory): the
 * id of the last row a page returned, behind a one-letter kind, in
 * base64url, so that clients treat it as opaque and a cursor of one
 * listing is refused by another. The next page starts strictly after
 * (older than) that row. Ids are non-negative integers of at most 20
 * digits (uint64).
 */

/** A cursor that this service did not issue (for this listing). */
export class CursorError extends Error {
  override readonly name = "CursorError";
}

export function encodeCursor(kind: string, id: bigint | number | string): string {
  return Buffer.from(`${kind}:${id}`).toString("base64url");
}

/** The row id behind a cursor of `kind`; throws CursorError for anything else. */
export function decodeCursor(kind: string, cursor: string): bigint {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString() : "";
  const separator = text.indexOf(":");
  const digits = text.slice(separator + 1);
  if (separator < 0 || text.slice(0, separator) !== kind || !/^\d{1,20}$/.test(digits)) {
    throw new CursorError(`cursor "${cursor}" is not a cursor this service issued`);
  }
  return BigInt(digits);
}
