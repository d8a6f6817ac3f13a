/**
 * The input log of a live session (`shadowbook serve --record <dir>`): every
 * input the Exchange receives, with its virtual time, appended as one JSON
 * line to `<dir>/inputs.jsonl` before the Exchange handles it (a synchronous
 * append: a crash loses nothing already answered). `<dir>/run.json` holds
 * what a replay needs to rebuild the same Exchange: the configuration, the
 * seed and the start time.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../core/fingerprint.ts";
import type { Micros } from "../core/time.ts";
import type { ExchangeConfig } from "../exchange/config.ts";
import type { ExchangeInput } from "../exchange/inputs.ts";
import type { InputLog } from "./driver.ts";

export const INPUT_LOG_FILE = "inputs.jsonl";
export const RUN_FILE = "run.json";

export class JsonlInputLog implements InputLog {
  private readonly path: string;

  constructor(directory: string, run: { config: ExchangeConfig; seed: number | string; startMicros: Micros; clock: string }) {
    mkdirSync(directory, { recursive: true });
    this.path = join(directory, INPUT_LOG_FILE);
    writeFileSync(join(directory, RUN_FILE), canonicalJson({ format: "shadowbook-input-log", version: 1, ...run }) + "\n");
    writeFileSync(this.path, "");
  }

  append(atMicros: Micros, input: ExchangeInput): void {
    appendFileSync(this.path, canonicalJson({ atMicros, input }) + "\n");
  }
}
