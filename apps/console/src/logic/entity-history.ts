/**
 * The history tab's rules: which aspect and which two versions the URL names, the versions of an aspect newest first,
 * and the REST reads that answer a version with who wrote it, when, and in which run.
 *
 * Versions are numbered as Strata's REST routes number them: each write of an aspect gets the next ordinal (1 the
 * oldest; the latest's ordinal is its `systemMetadata.version`), and reads name the latest 0 — its own ordinal is not
 * readable as such. The URL uses the reads' numbering (`left=0` is the latest), and accepts the latest's ordinal too.
 * Pure (unit-tested in entity-history.spec.ts).
 */

/** What the history tab's URL says. */
export interface HistoryState {
  readonly aspect?: string;
  /** Versions as the URL gives them (0 the latest). */
  readonly left?: number;
  readonly right?: number;
  /** The first version row shown (paging). */
  readonly start: number;
}

function wholeNumber(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** The history state of a URL's query. */
export function historyStateOf(params: URLSearchParams): HistoryState {
  const aspect = params.get('aspect') ?? undefined;
  const left = wholeNumber(params.get('left'));
  const right = wholeNumber(params.get('right'));
  return {
    ...(aspect === undefined || aspect === '' ? {} : { aspect }),
    ...(left === undefined ? {} : { left }),
    ...(right === undefined ? {} : { right }),
    start: wholeNumber(params.get('start')) ?? 0,
  };
}

/** The latest ordinal of an aspect from its system metadata's `version` ("3"); 1 when it says none. */
export function latestOrdinalOf(systemMetadataVersion: unknown): number {
  const number = typeof systemMetadataVersion === 'number' ? systemMetadataVersion : Number(systemMetadataVersion);
  return Number.isInteger(number) && number >= 1 ? number : 1;
}

/** The ordinals of one page of an aspect's versions, newest first. */
export function versionOrdinals(latest: number, start: number, count: number): number[] {
  const ordinals: number[] = [];
  for (let ordinal = latest - start; ordinal >= 1 && ordinals.length < count; ordinal -= 1) ordinals.push(ordinal);
  return ordinals;
}

/** The version number a read takes for an ordinal: 0 for the latest, the ordinal for an earlier one. */
export function readVersionOf(ordinal: number, latest: number): number {
  return ordinal >= latest ? 0 : ordinal;
}

/** The ordinal a URL's version names (0 and the latest's own ordinal name the latest); undefined when out of range. */
export function ordinalOf(version: number | undefined, latest: number): number | undefined {
  if (version === undefined) return undefined;
  if (version === 0) return latest;
  return version >= 1 && version <= latest ? version : undefined;
}

/** The URL's number for an ordinal (0 for the latest). */
export function urlVersionOf(ordinal: number, latest: number): number {
  return ordinal >= latest ? 0 : ordinal;
}

/**
 * The two versions compared, as ordinals: those the URL names, else the one before the latest (left) and the latest
 * (right); undefined when the aspect has a single version and the URL names none.
 */
export function comparedOrdinals(
  state: HistoryState,
  latest: number,
): { readonly left: number; readonly right: number } | undefined {
  const left = ordinalOf(state.left, latest);
  const right = ordinalOf(state.right, latest);
  if (left !== undefined && right !== undefined) return { left, right };
  if (latest < 2 && left === undefined && right === undefined) return undefined;
  return { left: left ?? Math.max(1, latest - 1), right: right ?? latest };
}

/** A value encoded as Rest.li 2.0 encodes a list item: also `(`, `)`, `,` and `'`, which its syntax uses. */
export function restliEncode(value: string): string {
  return encodeURIComponent(value).replace(/[()!'*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The REST path reading one version of one aspect with its audit stamp and system metadata (`GET
 * /entitiesVersionedV2`, a versioned key `(<urn> , <aspect>:<version>)`); `readVersion` 0 is the latest.
 */
export function versionedReadPath(urn: string, entityType: string, aspect: string, readVersion: number): string {
  const id = restliEncode(`(${urn} , ${aspect}:${readVersion})`);
  return `/entitiesVersionedV2?ids=List(${id})&entityType=${encodeURIComponent(entityType)}&aspects=List(${restliEncode(aspect)})`;
}

/** One aspect as REST answers it with its metadata (`GET /entitiesV2`, `/entitiesVersionedV2`). */
export interface StoredAspect {
  readonly value?: unknown;
  readonly version?: number;
  readonly created?: { readonly time?: number; readonly actor?: string };
  readonly systemMetadata?: {
    readonly runId?: string;
    readonly lastRunId?: string;
    readonly lastObserved?: number;
    readonly version?: string;
    readonly [key: string]: unknown;
  };
}

/** Who wrote a version, when, and in which run. */
export interface VersionWrite {
  readonly actor?: string;
  readonly time?: number;
  readonly runId?: string;
}

/** The write a stored aspect records (its audit stamp and its system metadata's run). */
export function writeOf(aspect: StoredAspect | undefined): VersionWrite {
  const actor = aspect?.created?.actor;
  const time = aspect?.created?.time;
  const runId = aspect?.systemMetadata?.runId;
  return {
    ...(typeof actor === 'string' && actor !== '' ? { actor } : {}),
    ...(typeof time === 'number' && time > 0 ? { time } : {}),
    ...(typeof runId === 'string' && runId !== '' && runId !== 'no-run-id-provided' ? { runId } : {}),
  };
}

/** An aspect of the entity in the history tab's list. */
export interface AspectHistoryRow extends VersionWrite {
  readonly name: string;
  /** How many versions it has had: its latest ordinal. */
  readonly versions: number;
}

/** The entity's aspects, by name, each with its number of versions and its latest write. */
export function aspectHistoryRows(aspects: Readonly<Record<string, StoredAspect | undefined>>): AspectHistoryRow[] {
  return Object.entries(aspects)
    .flatMap(([name, aspect]) =>
      aspect === undefined
        ? []
        : [{ name, versions: latestOrdinalOf(aspect.systemMetadata?.version), ...writeOf(aspect) }],
    )
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The aspect a versioned read answered for an entity (undefined when that version was not answered). */
export function aspectOfVersionedRead(body: unknown, urn: string, aspect: string): StoredAspect | undefined {
  const results = (body as { results?: Record<string, { aspects?: Record<string, StoredAspect> }> } | undefined)
    ?.results;
  return results?.[urn]?.aspects?.[aspect];
}
