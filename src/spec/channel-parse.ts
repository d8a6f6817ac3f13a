/**
 * Channel names: parse a subscribed name into its kind and parameter, and
 * build a name from them (spec 6.1). The parser splits on "/" once, looks the
 * shape up in a table built from the catalogue's templates, and checks the
 * parameter with a character loop: no regular expression on the hot path.
 */
import {
  CHANNEL_KINDS,
  CHANNELS,
  type AddressChannelKind,
  type ChannelNameOf,
  type ChannelKind,
  type PlainChannelKind,
  type SymbolChannelKind,
} from "./channels.ts";
import { ADDRESS_PATTERN, SYMBOL_PATTERN } from "./scalars.ts";

/** A channel name resolved to its kind and parameter. */
export type ParsedChannel =
  | { readonly kind: PlainChannelKind }
  | { readonly kind: SymbolChannelKind; readonly symbol: string }
  | { readonly kind: AddressChannelKind; readonly address: string };

/** The fixed prefix of every channel name. */
export const CHANNEL_PREFIX = "/v2/";
const PARAM_MARK = "*";

function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Same as SYMBOL_PATTERN (`^[A-Za-z0-9]+$`), without a regular expression. */
export function isSymbolParam(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    if (!isAsciiAlphanumeric(text.charCodeAt(i))) return false;
  }
  return true;
}

/** Same as ADDRESS_PATTERN (`^0x[a-fA-F0-9]{40}$`), without a regular expression. */
export function isAddressParam(text: string): boolean {
  if (text.length !== 42) return false;
  if (text.charCodeAt(0) !== 48 || text.charCodeAt(1) !== 120) return false; // "0x"
  for (let i = 2; i < 42; i++) {
    if (!isHexDigit(text.charCodeAt(i))) return false;
  }
  return true;
}

/** Shape key of a template: the part after "/v2/", its parameter replaced by "*". */
function templateShape(template: string): string {
  return template.slice(CHANNEL_PREFIX.length).replace("{symbol}", PARAM_MARK).replace("{address}", PARAM_MARK);
}

function isPlainKind(kind: ChannelKind): kind is PlainChannelKind {
  return CHANNELS[kind].param === "none";
}

function isSymbolKind(kind: ChannelKind): kind is SymbolChannelKind {
  return CHANNELS[kind].param === "symbol";
}

function isAddressKind(kind: ChannelKind): kind is AddressChannelKind {
  return CHANNELS[kind].param === "address";
}

const KIND_BY_SHAPE: ReadonlyMap<string, ChannelKind> = new Map(
  CHANNEL_KINDS.map((kind) => [templateShape(CHANNELS[kind].template), kind] as const),
);

/**
 * Resolves a channel name, or returns undefined for an unknown channel, a
 * malformed parameter, or extra or missing segments. Parameters are returned
 * as given (an address keeps its letter case; key wallets on a lowered copy).
 */
export function parseChannel(name: string): ParsedChannel | undefined {
  if (!name.startsWith(CHANNEL_PREFIX)) return undefined;
  const parts = name.split("/");
  // ["", "v2", ...]: 3 or 4 parts without a parameter, 5 with one.
  if (parts.length === 3 || parts.length === 4) {
    const kind = KIND_BY_SHAPE.get(name.slice(CHANNEL_PREFIX.length));
    if (kind === undefined || !isPlainKind(kind)) return undefined;
    return { kind };
  }
  if (parts.length !== 5) return undefined;
  const param = parts[3] ?? "";
  const kind = KIND_BY_SHAPE.get(`${parts[2] ?? ""}/${PARAM_MARK}/${parts[4] ?? ""}`);
  if (kind === undefined) return undefined;
  if (isSymbolKind(kind)) return isSymbolParam(param) ? { kind, symbol: param } : undefined;
  if (isAddressKind(kind)) return isAddressParam(param) ? { kind, address: param } : undefined;
  return undefined;
}

/**
 * Builds the name of a channel. Throws when the parameter is missing, not
 * expected, or does not match its pattern: a malformed name is a bug in the
 * caller, not an input to recover from. Code that holds a kind of unknown
 * parameter class builds through formatChannel. The name's type is its
 * kind's pattern (ChannelNameOf), so a stream subscribed by it hands typed
 * messages.
 */
export function channelName<K extends PlainChannelKind>(kind: K): ChannelNameOf<K>;
export function channelName<K extends SymbolChannelKind>(kind: K, symbol: string): ChannelNameOf<K>;
export function channelName<K extends AddressChannelKind>(kind: K, address: string): ChannelNameOf<K>;
export function channelName(kind: ChannelKind, param?: string): string {
  const spec = CHANNELS[kind];
  if (spec.param === "none") {
    if (param !== undefined) throw new Error(`channel "${kind}" takes no parameter, got "${param}"`);
    return spec.template;
  }
  if (spec.param === "symbol") {
    if (param === undefined || !isSymbolParam(param)) {
      throw new Error(`symbol "${param ?? ""}" of channel "${kind}" does not match ${SYMBOL_PATTERN.source}`);
    }
    return spec.template.replace("{symbol}", param);
  }
  if (param === undefined || !isAddressParam(param)) {
    throw new Error(`address "${param ?? ""}" of channel "${kind}" does not match ${ADDRESS_PATTERN.source}`);
  }
  return spec.template.replace("{address}", param);
}

/** Builds the name of a parsed channel (the inverse of parseChannel). */
export function formatChannel(parsed: ParsedChannel): string {
  if ("symbol" in parsed) return channelName(parsed.kind, parsed.symbol);
  if ("address" in parsed) return channelName(parsed.kind, parsed.address);
  return channelName(parsed.kind);
}
