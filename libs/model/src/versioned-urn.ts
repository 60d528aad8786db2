import { BadRequestError } from './errors';

/**
 * A Rest.li key naming an entity at a point in its history: DataHub's `VersionedUrn`, written `(<urn> , <versionStamp>)`
 * (a space, a comma and a space between the two), the form `GET /entitiesVersionedV2?ids=List(…)` takes.
 */
export interface VersionedUrnKey {
  readonly urn: string;
  /** `aspectA:3;aspectB:0`; empty when the key names no version (every aspect at its latest). */
  readonly versionStamp: string;
}

/** What separates the URN from the version stamp in a key. */
const SEPARATOR = ' , ';

/**
 * Reads a `(<urn> , <versionStamp>)` key. The stamp is taken after the last separator, so a URN holding one (a name
 * with ` , ` in it) stays whole: a stamp never holds one. `null` as the stamp — what DataHub's Java `VersionedUrn` writes
 * when it has none — counts as no stamp. Throws {@link BadRequestError} for text of another shape.
 */
export function parseVersionedUrnKey(text: string): VersionedUrnKey {
  const separator = text.lastIndexOf(SEPARATOR);
  if (!text.startsWith('(') || !text.endsWith(')') || separator < 1) {
    throw new BadRequestError(`Invalid versioned URN ${text}: expected (<urn> , <versionStamp>)`);
  }
  const urn = text.slice(1, separator);
  const stamp = text.slice(separator + SEPARATOR.length, -1);
  if (urn === '') throw new BadRequestError(`Invalid versioned URN ${text}: the URN is empty`);
  return { urn, versionStamp: stamp === 'null' ? '' : stamp };
}

/**
 * The versions a stamp names, by aspect name: pairs `aspect:version` separated by `;` (DataHub's
 * `VersionedUrnUtils.convertVersionStamp`). A blank stamp names none; an aspect named twice keeps its last version.
 * Versions are DataHub's: 0 the latest, N ≥ 1 an earlier one. Throws {@link BadRequestError} with DataHub's words for a
 * pair that is not `name:integer` (where DataHub fails with a 500).
 */
export function parseVersionStamp(stamp: string): ReadonlyMap<string, number> {
  const versions = new Map<string, number>();
  if (stamp.trim() === '') return versions;
  const pairs = stamp.split(';');
  // Like Java's String.split, which the stamp's format comes from: a trailing separator adds no pair.
  while (pairs.length > 0 && pairs[pairs.length - 1] === '') pairs.pop();
  for (const pair of pairs) {
    const tokens = pair.split(':');
    const [aspect, version] = tokens;
    if (tokens.length !== 2 || aspect === undefined || aspect === '' || version === undefined) {
      throw new BadRequestError(`Invalid version stamp cannot be parsed: ${stamp}`);
    }
    const number = /^[+-]?[0-9]+$/.test(version) ? Number(version) : Number.NaN;
    if (!Number.isSafeInteger(number)) throw new BadRequestError(`Invalid value for aspect version: ${version}`);
    versions.set(aspect, number);
  }
  return versions;
}
