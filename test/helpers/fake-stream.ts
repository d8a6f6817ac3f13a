/** A write stream that keeps what was written, a terminal or not (for progress output on stderr). */
export function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const stream = {
    isTTY,
    write(chunk: string | Uint8Array): boolean {
      writes.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

/**
 * What a terminal shows after `writes`: `\r` returns to the start of the
 * line and what follows overwrites it character by character (the rest of
 * the old line stays), `\n` starts a new line. Trailing spaces are dropped.
 */
export function terminalScreen(writes: readonly string[]): string[] {
  const lines: string[][] = [[]];
  let column = 0;
  for (const char of writes.join("")) {
    const line = lines[lines.length - 1]!;
    if (char === "\r") column = 0;
    else if (char === "\n") {
      lines.push([]);
      column = 0;
    } else line[column++] = char;
  }
  return lines.map((line) => line.join("").trimEnd());
}
