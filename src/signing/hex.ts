/** Hex digits read by character code, for the parsers of the fast path (no regex, no substrings). */

/** The value of the hex digit with character code `code` (either case), or -1. */
export function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/** True when `code` is an uppercase hex letter A-F. */
export function isUpperHexLetter(code: number): boolean {
  return code >= 65 && code <= 70;
}
