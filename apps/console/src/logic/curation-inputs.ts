/**
 * What the curation editors accept, checked before anything is sent: a link's URL (http or https only) and label, a
 * tag named by URN or by name (a new tag's URN made from its name), a glossary term, a user or group owner, a domain,
 * a deprecation's note and decommission date. Each check answers the value to send or a message to show beside the
 * input. Pure functions (unit-tested in curation-inputs.spec.ts); the server checks everything again.
 */

/** A checked input: the value to send, or why not. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const refused = <T>(error: string): Checked<T> => ({ ok: false, error });

/** Longest URL, label, name or note the editors accept (the server's limits are larger; this keeps pages readable). */
export const MAX_URL_LENGTH = 2000;
export const MAX_LABEL_LENGTH = 200;
export const MAX_NAME_LENGTH = 200;
export const MAX_NOTE_LENGTH = 5000;

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A link's URL: an absolute http or https URL with a host, without spaces. */
export function checkLinkUrl(text: string): Checked<string> {
  const url = text.trim();
  if (url === '') return refused('Enter the link’s URL.');
  if (url.length > MAX_URL_LENGTH) return refused(`A URL may have at most ${MAX_URL_LENGTH} characters.`);
  if (/\s/.test(url) || CONTROL.test(url)) return refused('A URL may not contain spaces.');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refused('Enter a full URL, starting with https:// or http://.');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return refused('Only http and https links can be added.');
  }
  if (parsed.hostname === '') return refused('The URL needs a host name.');
  return ok(url);
}

/** A link's label; an empty one is the URL itself. */
export function checkLinkLabel(text: string, url: string): Checked<string> {
  const label = text.trim();
  if (label.length > MAX_LABEL_LENGTH) return refused(`A label may have at most ${MAX_LABEL_LENGTH} characters.`);
  if (CONTROL.test(label)) return refused('A label may not contain control characters.');
  return ok(label === '' ? url : label);
}

/** The id of a URN of `type` (`urn:li:<type>:<id>`), or undefined when it is not one. */
function idOf(text: string, type: string): string | undefined {
  const prefix = `urn:li:${type}:`;
  return text.startsWith(prefix) ? text.slice(prefix.length) : undefined;
}

/** A simple id: not empty, no tuple syntax (parentheses, commas), no control characters, not too long. */
function checkId(id: string, what: string): Checked<string> {
  if (id === '') return refused(`Enter a ${what}.`);
  if (id.length > MAX_NAME_LENGTH) return refused(`A ${what} may have at most ${MAX_NAME_LENGTH} characters.`);
  if (/[(),]/.test(id)) return refused(`A ${what} may not contain parentheses or commas.`);
  if (CONTROL.test(id)) return refused(`A ${what} may not contain control characters.`);
  return ok(id);
}

/** A tag: its URN and name. */
export interface TagRef {
  readonly urn: string;
  readonly name: string;
}

/** A tag named by its URN (`urn:li:tag:pii`) or by its name (`pii` → `urn:li:tag:pii`). */
export function tagOfInput(text: string): Checked<TagRef> {
  const trimmed = text.trim();
  const id = idOf(trimmed, 'tag') ?? trimmed;
  if (trimmed.startsWith('urn:') && idOf(trimmed, 'tag') === undefined) {
    return refused('A tag URN starts with urn:li:tag:.');
  }
  const checked = checkId(id.trim(), 'tag name');
  return checked.ok ? ok({ urn: `urn:li:tag:${checked.value}`, name: checked.value }) : checked;
}

/** A glossary term named by its URN (`urn:li:glossaryTerm:Classification.PII`) or its id. */
export function termUrnOfInput(text: string): Checked<string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('urn:') && idOf(trimmed, 'glossaryTerm') === undefined) {
    return refused('A glossary term URN starts with urn:li:glossaryTerm:.');
  }
  const checked = checkId((idOf(trimmed, 'glossaryTerm') ?? trimmed).trim(), 'glossary term');
  return checked.ok ? ok(`urn:li:glossaryTerm:${checked.value}`) : checked;
}

/** A domain named by its URN (`urn:li:domain:finance`) or its id. */
export function domainUrnOfInput(text: string): Checked<string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('urn:') && idOf(trimmed, 'domain') === undefined) {
    return refused('A domain URN starts with urn:li:domain:.');
  }
  const checked = checkId((idOf(trimmed, 'domain') ?? trimmed).trim(), 'domain');
  return checked.ok ? ok(`urn:li:domain:${checked.value}`) : checked;
}

/** An owner as the owner mutations take it. */
export interface OwnerRef {
  readonly urn: string;
  readonly entityType: 'CORP_USER' | 'CORP_GROUP';
}

/** A user (`urn:li:corpuser:jdoe`, or a bare user name) or a group (`urn:li:corpGroup:analysts`). */
export function ownerOfInput(text: string): Checked<OwnerRef> {
  const trimmed = text.trim();
  const group = idOf(trimmed, 'corpGroup');
  if (group !== undefined) {
    const checked = checkId(group, 'group name');
    return checked.ok ? ok({ urn: `urn:li:corpGroup:${checked.value}`, entityType: 'CORP_GROUP' }) : checked;
  }
  if (trimmed.startsWith('urn:') && idOf(trimmed, 'corpuser') === undefined) {
    return refused('An owner is a user (urn:li:corpuser:…) or a group (urn:li:corpGroup:…).');
  }
  const user = idOf(trimmed, 'corpuser') ?? trimmed;
  if (/\s/.test(user)) return refused('A user name may not contain spaces.');
  const checked = checkId(user, 'user name');
  return checked.ok ? ok({ urn: `urn:li:corpuser:${checked.value}`, entityType: 'CORP_USER' }) : checked;
}

/** The owner entity type of an owner URN, as the owner mutations name it. */
export function ownerEntityTypeOf(urn: string): 'CORP_USER' | 'CORP_GROUP' {
  return urn.startsWith('urn:li:corpGroup:') ? 'CORP_GROUP' : 'CORP_USER';
}

/** DataHub's ownership types the editor offers, in its order. */
export const OWNERSHIP_TYPES = [
  { type: 'TECHNICAL_OWNER', label: 'Technical owner' },
  { type: 'BUSINESS_OWNER', label: 'Business owner' },
  { type: 'DATA_STEWARD', label: 'Data steward' },
  { type: 'NONE', label: 'None' },
] as const;

/** The system ownership type entity of a legacy ownership type (`TECHNICAL_OWNER` → `…__system__technical_owner`). */
export function ownershipTypeUrnOf(type: string): string {
  return `urn:li:ownershipType:__system__${type.toLowerCase()}`;
}

/** Words for an ownership type (legacy name or type URN); undefined when there is none. */
export function ownershipTypeLabel(type: string | undefined | null): string | undefined {
  if (type === undefined || type === null || type === '') return undefined;
  const legacy = type.startsWith('urn:li:ownershipType:__system__')
    ? type.slice('urn:li:ownershipType:__system__'.length).toUpperCase()
    : type;
  const known = OWNERSHIP_TYPES.find((entry) => entry.type === legacy);
  if (known !== undefined) return known.label;
  const words = legacy
    .replace(/^urn:li:ownershipType:/, '')
    .replace(/_/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The ownership type URN a removal names: the owner's own type URN, else its legacy type's, else none (the owner is
 * then removed under every type).
 */
export function removalTypeUrnOf(owner: {
  readonly type?: string;
  readonly ownershipTypeUrn?: string;
}): string | undefined {
  if (owner.ownershipTypeUrn !== undefined && owner.ownershipTypeUrn !== '') return owner.ownershipTypeUrn;
  if (owner.type !== undefined && owner.type !== '') return ownershipTypeUrnOf(owner.type);
  return undefined;
}

/** A deprecation as the form holds it. */
export interface DeprecationForm {
  readonly deprecated: boolean;
  readonly note: string;
  /** `YYYY-MM-DD` from a date input, or '' for none. */
  readonly date: string;
}

/** A deprecation as `updateDeprecation` takes it. */
export interface DeprecationValue {
  readonly deprecated: boolean;
  readonly note: string;
  readonly decommissionTime: number | null;
}

/**
 * A deprecation to send: a note (at most {@link MAX_NOTE_LENGTH} characters) and an optional decommission date (the
 * day, at midnight UTC, in epoch milliseconds). Un-deprecating sends neither.
 */
export function checkDeprecation(form: DeprecationForm): Checked<DeprecationValue> {
  if (!form.deprecated) return ok({ deprecated: false, note: '', decommissionTime: null });
  const note = form.note.trim();
  if (note.length > MAX_NOTE_LENGTH) return refused(`A note may have at most ${MAX_NOTE_LENGTH} characters.`);
  if (form.date.trim() === '') return ok({ deprecated: true, note, decommissionTime: null });
  const time = millisOfDate(form.date.trim());
  if (time === undefined) return refused('Enter the decommission date as a date (YYYY-MM-DD).');
  return ok({ deprecated: true, note, decommissionTime: time });
}

/** Epoch milliseconds of a `YYYY-MM-DD` day at midnight UTC; undefined for anything else or a day that is not. */
export function millisOfDate(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const millis = Date.UTC(year, month - 1, day);
  const date = new Date(millis);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return millis;
}

/** The `YYYY-MM-DD` (UTC) of epoch milliseconds, for a date input; '' for none. */
export function dateOfMillis(millis: number | null | undefined): string {
  if (millis === null || millis === undefined || !Number.isFinite(millis) || millis <= 0) return '';
  return new Date(millis).toISOString().slice(0, 10);
}

/** A description to send: the text as typed, trailing whitespace removed (an empty one clears it). */
export function descriptionToSend(text: string): string {
  return text.replace(/\s+$/, '');
}

/** Whether a description changed (compared as it would be sent). */
export function descriptionChanged(before: string | null | undefined, after: string): boolean {
  return descriptionToSend(before ?? '') !== descriptionToSend(after);
}
