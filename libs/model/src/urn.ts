import { BadRequestError, ValidationError } from './errors';

/** A URN that does not parse, or does not fit where it is used. A {@link ValidationError} (HTTP 422 on proposals). */
export class InvalidUrnError extends ValidationError {
  /** The text that was rejected. */
  readonly urn: string;

  constructor(urn: string, reason: string, options?: { cause?: unknown }) {
    super(`Invalid URN "${urn}": ${reason}`, options);
    this.urn = urn;
  }
}

const URN_PREFIX = 'urn:li:';
const ENTITY_TYPE_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * A parsed URN, `urn:li:<entityType>:<id>`. Immutable; `toString()` gives back exactly the text it was parsed from.
 *
 * The id is either a single part (`urn:li:corpuser:jdoe`) or a tuple `(a,b,c)` whose parts may themselves be URNs with
 * their own parentheses and commas (`urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)`). Build one with
 * {@link parseUrn}.
 */
export class Urn {
  /** The entity type, e.g. `dataset`. */
  readonly entityType: string;
  /** The raw id text after the entity type, e.g. `(urn:li:dataPlatform:hive,db.table,PROD)`. */
  readonly id: string;
  /** The tuple parts of the id, or `[id]` when the id is not a tuple. Never empty; no part is empty. */
  readonly parts: readonly string[];

  /** Use {@link parseUrn}: the constructor trusts its arguments. */
  private constructor(entityType: string, id: string, parts: readonly string[]) {
    this.entityType = entityType;
    this.id = id;
    this.parts = Object.freeze([...parts]);
    Object.freeze(this);
  }

  /** @internal Parses `text`; see {@link parseUrn}. */
  static parse(text: string): Urn {
    if (typeof text !== 'string') throw new InvalidUrnError(String(text), 'not a string');
    // A lone surrogate has no UTF-8 form: such a URN could be stored but never put in a URL to be read back.
    if (!text.isWellFormed())
      throw new InvalidUrnError(text.toWellFormed(), 'contains an unpaired surrogate (not Unicode text)');
    if (!text.startsWith(URN_PREFIX)) throw new InvalidUrnError(text, `must start with "${URN_PREFIX}"`);
    const rest = text.slice(URN_PREFIX.length);
    const colon = rest.indexOf(':');
    if (colon < 0) throw new InvalidUrnError(text, 'missing the entity id after the entity type');
    const entityType = rest.slice(0, colon);
    if (entityType === '') throw new InvalidUrnError(text, 'the entity type is empty');
    if (!ENTITY_TYPE_PATTERN.test(entityType)) {
      throw new InvalidUrnError(text, `the entity type "${entityType}" may contain only letters, digits and "_"`);
    }
    const id = rest.slice(colon + 1);
    return new Urn(entityType, id, splitId(text, id));
  }

  /** The URN text, exactly as parsed. */
  toString(): string {
    return `${URN_PREFIX}${this.entityType}:${this.id}`;
  }

  /** JSON form: the URN text. */
  toJSON(): string {
    return this.toString();
  }

  /** True when `other` is the same URN (compared as text; URNs are case-sensitive). */
  equals(other: Urn | string): boolean {
    return this.toString() === (typeof other === 'string' ? other : other.toString());
  }
}

/**
 * Parses `urn:li:<entityType>:<id>`. Throws {@link InvalidUrnError} (`Invalid URN "<text>": <reason>`) when the prefix
 * or entity type is missing, the id is empty, parentheses are unbalanced, or a tuple has an empty part.
 */
export function parseUrn(text: string): Urn {
  return Urn.parse(text);
}

/**
 * Formats a URN from its entity type and id parts: one part gives `urn:li:<type>:<part>`, several give
 * `urn:li:<type>:(<a>,<b>,…)`. Throws {@link InvalidUrnError} when the result would not parse back to the same parts
 * (an empty part, unbalanced parentheses, a comma in a single part that looks like a tuple).
 */
export function formatUrn(entityType: string, parts: readonly string[]): string {
  if (parts.length === 0) throw new InvalidUrnError(`${URN_PREFIX}${entityType}:`, 'a URN needs at least one id part');
  const single = parts.length === 1 ? parts[0] : undefined;
  // A single part that itself starts with "(" would read back as a tuple, so it is wrapped like one.
  const id = single !== undefined && !single.startsWith('(') ? single : `(${parts.join(',')})`;
  const text = `${URN_PREFIX}${entityType}:${id}`;
  const urn = parseUrn(text);
  if (urn.parts.length !== parts.length || urn.parts.some((part, index) => part !== parts[index])) {
    throw new InvalidUrnError(text, `the parts ${JSON.stringify(parts)} cannot be written as one URN`);
  }
  return text;
}

/**
 * Decodes a URN taken from a URL path segment. Clients send URNs raw (`/entities/urn:li:dataset:(…,PROD)`) or
 * percent-encoded (`urn%3Ali%3Adataset%3A%28…%29`); both decode to the same text. Decodes exactly once, so an encoded
 * `%25` stays a literal `%`. Throws {@link BadRequestError} for a malformed `%` escape.
 */
export function decodeUrnPathSegment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch (error) {
    throw new BadRequestError(`Malformed percent-encoding in URN path segment "${raw}"`, { cause: error });
  }
}

/** Percent-encodes a URN for a URL path segment: everything but RFC 3986 unreserved characters, parentheses included. */
export function encodeUrnPathSegment(urn: string): string {
  return encodeURIComponent(urn).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * DataHub's limit on a URN's length, URL-encoded (`UrnValidationUtil.URN_NUM_BYTES_LIMIT`): a longer URN cannot be
 * read back through a URL path.
 */
export const MAX_URL_ENCODED_URN_LENGTH = 512;

/** The entity type DataHub exempts from {@link MAX_URL_ENCODED_URN_LENGTH}. */
const LENGTH_EXEMPT_ENTITY_TYPE = 'schemaField';

/** Characters Java's `URLEncoder` leaves as they are. */
const URL_ENCODER_KEEPS = /[A-Za-z0-9.\-*_]/;

/**
 * The length of `text` URL-encoded the way Java's `URLEncoder.encode(text, UTF_8)` does, which is how DataHub measures
 * URNs: letters, digits and `.-*_` count one, a space one (`+`), every other character three per UTF-8 byte (`%XX`).
 * A lone surrogate counts as the `?` Java encodes it to.
 */
export function urlEncodedLength(text: string): number {
  let length = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    if (char === ' ' || URL_ENCODER_KEEPS.test(char)) length += 1;
    else if (codePoint < 0x80) length += 3;
    else if (codePoint < 0x800) length += 6;
    else if (codePoint >= 0xd800 && codePoint <= 0xdfff) length += 3;
    else if (codePoint < 0x10000) length += 9;
    else length += 12;
  }
  return length;
}

/**
 * DataHub's refusal of a URN too long to be read back (`UrnValidationUtil.validateUrn`): its message when the URN's
 * {@link urlEncodedLength} is over {@link MAX_URL_ENCODED_URN_LENGTH} (schemaField URNs exempt), else undefined.
 * Writes refuse such a URN as a validation error, reads as a bad request.
 */
export function urnLengthProblem(urn: Urn): string | undefined {
  if (urn.entityType === LENGTH_EXEMPT_ENTITY_TYPE) return undefined;
  if (urlEncodedLength(urn.toString()) <= MAX_URL_ENCODED_URN_LENGTH) return undefined;
  return `Error: cannot provide an URN longer than ${MAX_URL_ENCODED_URN_LENGTH} bytes (when URL encoded)`;
}

/** Splits an id into its tuple parts (or `[id]`), checking balance and non-empty parts. */
function splitId(text: string, id: string): readonly string[] {
  if (id === '') throw new InvalidUrnError(text, 'the entity id is empty');
  let depth = 0;
  for (let index = 0; index < id.length; index++) {
    const char = id[index];
    if (char === '(') depth++;
    else if (char === ')') {
      depth--;
      if (depth < 0)
        throw new InvalidUrnError(text, `unbalanced parentheses: unexpected ")" at position ${index + 1} of the id`);
    }
  }
  if (depth !== 0) throw new InvalidUrnError(text, 'unbalanced parentheses: missing ")"');
  if (!id.startsWith('(')) return [id];

  // A tuple: "(" parts ")", parts split at the commas of depth 1. The opening "(" must close at the very end.
  const parts: string[] = [];
  let start = 1;
  depth = 0;
  for (let index = 0; index < id.length; index++) {
    const char = id[index];
    if (char === '(') depth++;
    else if (char === ')') {
      depth--;
      if (depth === 0 && index !== id.length - 1) {
        throw new InvalidUrnError(text, 'unexpected text after the closing ")" of the tuple');
      }
    } else if (char === ',' && depth === 1) {
      parts.push(id.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(id.slice(start, id.length - 1));
  const empty = parts.findIndex((part) => part === '');
  if (empty >= 0) throw new InvalidUrnError(text, `tuple part ${empty + 1} of ${parts.length} is empty`);
  return parts;
}
