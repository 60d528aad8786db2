import { useEffect, useState } from 'react';
import { restJson } from '../../api/rest';
import type { RunRow } from '../../logic/admin-runs';
import { entityTypeOfUrn } from '../../logic/urn';
import { ActorLink } from './admin-ui';

/**
 * Who wrote an ingestion run, when the catalog knows: the `/runs` answers do not say, but every value keeps the actor
 * of the write that made it, and a run's rows are values it wrote last. So: the run's first row (`describe`), then
 * that value's audit stamp (`GET /openapi/v3/entity/{type}/{urn}?systemMetadata=true`). Answers are kept for the
 * page's life, so that going back and forth asks once.
 */
const actors = new Map<string, Promise<string | null>>();

async function actorOf(runId: string): Promise<string | null> {
  const described = await restJson<{ value: RunRow[] }>('POST', '/runs?action=describe', { runId, start: 0, count: 1 });
  const row = described.value[0];
  if (row === undefined) return null;
  const type = entityTypeOfUrn(row.urn);
  if (type === undefined) return null;
  const entity = await restJson<Record<string, { auditStamp?: { actor?: string } } | string>>(
    'GET',
    `/openapi/v3/entity/${encodeURIComponent(type)}/${encodeURIComponent(row.urn)}?aspects=${encodeURIComponent(
      row.aspectName,
    )}&systemMetadata=true`,
  );
  const aspect = entity[row.aspectName];
  return typeof aspect === 'object' ? (aspect.auditStamp?.actor ?? null) : null;
}

/** The actor of a run: undefined while asked, null when unknown. */
export function useRunActor(runId: string): string | null | undefined {
  const [actor, setActor] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let pending = actors.get(runId);
    if (pending === undefined) {
      pending = actorOf(runId).catch(() => null);
      actors.set(runId, pending);
    }
    void pending.then((found) => {
      if (live) setActor(found);
    });
    return () => {
      live = false;
    };
  }, [runId]);
  return actor;
}

/** The actor of a run as a link to the user's page, or a dash. */
export function RunActor({ runId }: { readonly runId: string }) {
  const actor = useRunActor(runId);
  if (actor === undefined) return <span className="muted">…</span>;
  if (actor === null) return <span className="muted">unknown</span>;
  return <ActorLink urn={actor} />;
}

/** Forgets what is known of a run (after it was rolled back, its rows are others'). */
export function forgetRunActor(runId: string): void {
  actors.delete(runId);
}
