/**
 * The search hook: keeps each entity's search document (search, browse, autocomplete) from the versioned change logs.
 * Per batch it reads the documents of the entities concerned, folds every change through the pure `evolveDocument`
 * in log order, and writes the results in one index write. Idempotent: a document keeps each aspect's contribution,
 * so replaying changes writes the same documents again.
 */
import type { ChangeLogEvent, ChangeLogHook } from '@strata/change-log';
import type { SearchDocument, SearchIndex } from '@strata/indices';
import { documentWrite, evolveDocument, type AspectChange } from '../domain/evolve';

export function searchDocumentHook(search: SearchIndex): ChangeLogHook {
  return {
    name: 'search',
    consumes: ['versioned'],
    servesReads: true,
    apply: async (events) => {
      const changes = events.map(aspectChangeOf);
      const urns = [...new Set(changes.map((change) => change.urn))];
      const stored = await search.documents(urns);
      const documents = new Map<string, SearchDocument | null | undefined>(urns.map((urn) => [urn, stored.get(urn)]));
      for (const change of changes) documents.set(change.urn, evolveDocument(documents.get(change.urn), change));
      await search.write(
        [...documents].flatMap(([urn, document]) => (document === undefined ? [] : [documentWrite(urn, document)])),
      );
    },
  };
}

/** A decoded change log in the shape the domain functions take. */
export function aspectChangeOf(event: ChangeLogEvent): AspectChange {
  return {
    entity: event.entity,
    urn: event.urn,
    aspectName: event.aspect.name,
    changeType: event.changeType,
    value: event.value,
    ...(event.created === undefined ? {} : { createdAt: event.created.time, createdBy: event.created.actor }),
  };
}
