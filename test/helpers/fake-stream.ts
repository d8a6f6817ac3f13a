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
