import { useCallback, useEffect, useState } from 'react';
import { restJson } from '../../api/rest';
import { aspectOfVersionedRead, readVersionOf, versionedReadPath, type StoredAspect } from '../../logic/entity-history';

/**
 * The entity page's REST reads: the latest aspects of an entity with their metadata (`GET /entitiesV2/{urn}`, for
 * the raw and history tabs and the generic page), and single versions of an aspect (`GET /entitiesVersionedV2`).
 */

/** An entity's latest aspects as `GET /entitiesV2/{urn}` answers them. */
export interface LatestAspects {
  readonly urn: string;
  readonly entityName?: string;
  readonly aspects: Readonly<Record<string, StoredAspect>>;
}

/** A REST read for a view: its answer, whether it is under way, its error, and a way to read again. */
export interface RestRead<T> {
  readonly data: T | undefined;
  readonly loading: boolean;
  readonly error: unknown;
  readonly refetch: () => void;
}

/** Reads `path` (none when undefined), again when it changes or on `refetch`; a late answer to an old path is dropped. */
export function useRestRead<T>(path: string | undefined): RestRead<T> {
  const [state, setState] = useState<{ path?: string; data?: T; error?: unknown; loading: boolean }>({
    loading: path !== undefined,
  });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === undefined) return undefined;
    let current = true;
    setState((previous) => ({ ...(previous.path === path ? previous : {}), path, loading: true }));
    restJson<T>('GET', path).then(
      (data) => {
        if (current) setState({ path, data, loading: false });
      },
      (error: unknown) => {
        if (current) setState({ path, error, loading: false });
      },
    );
    return () => {
      current = false;
    };
  }, [path, round]);
  const refetch = useCallback(() => {
    setRound((value) => value + 1);
  }, []);
  const fresh = state.path === path;
  return {
    data: fresh ? state.data : undefined,
    error: fresh ? state.error : undefined,
    loading: path !== undefined && (!fresh || state.loading),
    refetch,
  };
}

/** The path of an entity's latest aspects. */
export function latestAspectsPath(urn: string): string {
  return `/entitiesV2/${encodeURIComponent(urn)}`;
}

/**
 * Versions already read, by `<urn>|<aspect>|<ordinal>`: a version's value never changes once written, so each is read
 * once while the console is open (the latest is keyed by its own ordinal, so a newer write is a new key).
 */
const versionCache = new Map<string, Promise<StoredAspect | undefined>>();

/** One version (an ordinal, `latest` being the aspect's latest ordinal) of an aspect, with who wrote it and when. */
export function readAspectVersion(
  urn: string,
  entityType: string,
  aspect: string,
  ordinal: number,
  latest: number,
): Promise<StoredAspect | undefined> {
  const key = `${urn}|${aspect}|${ordinal}`;
  const known = versionCache.get(key);
  if (known !== undefined) return known;
  const read = restJson<unknown>(
    'GET',
    versionedReadPath(urn, entityType, aspect, readVersionOf(ordinal, latest)),
  ).then((body) => aspectOfVersionedRead(body, urn, aspect));
  versionCache.set(key, read);
  // A failed read is not remembered: the next view tries again.
  read.catch(() => versionCache.delete(key));
  return read;
}

/** The state of one version's read. */
export interface VersionRead {
  readonly aspect?: StoredAspect;
  readonly error?: unknown;
  readonly loading: boolean;
}

/** Several versions of one aspect, read at once. */
export function useAspectVersions(
  urn: string,
  entityType: string,
  aspect: string | undefined,
  ordinals: readonly number[],
  latest: number,
): ReadonlyMap<number, VersionRead> {
  const [reads, setReads] = useState<{ key: string; versions: Map<number, VersionRead> }>({
    key: '',
    versions: new Map(),
  });
  // The ordinals as text: a new array each render, the same list as long as this is the same.
  const wanted = ordinals.join(',');
  const key = `${urn}|${aspect ?? ''}|${latest}|${wanted}`;
  useEffect(() => {
    const list = wanted === '' ? [] : wanted.split(',').map(Number);
    if (aspect === undefined || list.length === 0) return undefined;
    const readKey = `${urn}|${aspect}|${latest}|${wanted}`;
    let current = true;
    setReads({ key: readKey, versions: new Map(list.map((ordinal) => [ordinal, { loading: true }])) });
    const settle = (ordinal: number, read: VersionRead) => {
      if (!current) return;
      setReads((previous) => {
        const versions = new Map(previous.versions);
        versions.set(ordinal, read);
        return { key: previous.key, versions };
      });
    };
    for (const ordinal of list) {
      readAspectVersion(urn, entityType, aspect, ordinal, latest).then(
        (found) => {
          settle(ordinal, found === undefined ? { loading: false } : { aspect: found, loading: false });
        },
        (error: unknown) => {
          settle(ordinal, { error, loading: false });
        },
      );
    }
    return () => {
      current = false;
    };
  }, [urn, entityType, aspect, latest, wanted]);
  if (reads.key !== key) return new Map(ordinals.map((ordinal) => [ordinal, { loading: true }]));
  return reads.versions;
}
