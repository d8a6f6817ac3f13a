/**
 * Graceful stop of a served exchange on SIGTERM or SIGINT (spec 6.3): the
 * first signal drains connections (readiness answers 503, idle streams get
 * 1001, the rest within the drain) and exits 0 once closed, 1 if closing
 * failed. A second signal while it drains ends the process at once.
 */
export function stopOnSignals(server: { close(): Promise<void> }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: draining connections (readiness now 503)`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error instanceof Error ? error.message : String(error));
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}
