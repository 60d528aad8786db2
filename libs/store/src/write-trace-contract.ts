import { describe, expect, it } from '@jest/globals';
import { ConflictError } from '@strata/model';

import type { AspectStore, PutAspect } from './aspect-store';
import type { LogEnd, NewWriteTrace } from './write-traces';

/**
 * The write-trace part of the AspectStore contract (`AspectStore.findWriteTraces`, `recordPublication`, and
 * `StoreCommit.writeTraces`), run by `describeAspectStoreContract` against every adapter.
 */
export function describeWriteTraceContract(
  open: () => Promise<{ store: AspectStore; reopen: () => Promise<AspectStore> }>,
  newUrn: () => string,
): void {
  describe('write traces', () => {
    it('records what each (urn, aspect) of a trace became, with the commit, and finds exactly those', async () => {
      const { store } = await open();
      const urn = newUrn();
      const applied = trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/0`, version: 1, createdOn: 7 });
      const refused = trace({
        urn,
        aspect: 'status',
        proposalId: `${urn}/1`,
        status: 'REJECTED',
        errorCode: 'validation',
        error: 'Could not deserialize "x" for aspect status: expected a JSON object',
        changeLogged: false,
      });
      const unchanged = trace({ urn, aspect: 'corpUserKey', proposalId: `${urn}/0`, status: 'UNCHANGED' });
      await store.commit({
        mutations: [put(urn, 'corpUserInfo', 0, 1)],
        outbox: [],
        appliedProposalIds: [`${urn}/0`, `${urn}/1`],
        writeTraces: [applied, refused, unchanged],
      });

      const found = await store.findWriteTraces('trace-1', [
        { urn, aspect: 'corpUserInfo' },
        { urn, aspect: 'status' },
        { urn, aspect: 'corpUserKey' },
        { urn, aspect: 'corpUserInfo' },
        { urn, aspect: 'never-written' },
        { urn: newUrn(), aspect: 'status' },
      ]);
      expect(sorted(found)).toEqual(sorted([applied, refused, unchanged].map(unpublished)));
      expect(await store.findWriteTraces('another-trace', [{ urn, aspect: 'corpUserInfo' }])).toEqual([]);
      expect(await store.findWriteTraces('trace-1', [])).toEqual([]);
    });

    it('replaces the record of the same trace, urn and aspect with a later commit’s, publication and all', async () => {
      const { store } = await open();
      const urn = newUrn();
      const first = trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/first`, version: 1, createdOn: 1 });
      await store.commit({ mutations: [], outbox: [], appliedProposalIds: [], writeTraces: [first] });
      await store.recordPublication([`${urn}/first`], ENDS);
      const second = trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/second`, version: 2, createdOn: 2 });
      const inOneCommit = trace({ urn, aspect: 'status', proposalId: `${urn}/a`, version: 1, createdOn: 3 });
      const laterInTheSameCommit = { ...inOneCommit, proposalId: `${urn}/b`, version: 2, createdOn: 4 };
      await store.commit({
        mutations: [],
        outbox: [],
        appliedProposalIds: [],
        writeTraces: [second, inOneCommit, laterInTheSameCommit],
      });

      expect(
        sorted(
          await store.findWriteTraces('trace-1', [
            { urn, aspect: 'corpUserInfo' },
            { urn, aspect: 'status' },
          ]),
        ),
      ).toEqual(sorted([unpublished(second), unpublished(laterInTheSameCommit)]));
    });

    it('records traces atomically with the commit: a commit that fails records none', async () => {
      const { store } = await open();
      const urn = newUrn();
      await store.commit({ mutations: [put(urn, 'corpUserInfo', 0, 1)], outbox: [], appliedProposalIds: [] });
      const failing = store.commit({
        mutations: [put(urn, 'corpUserInfo', 0, 1)],
        outbox: [],
        appliedProposalIds: [],
        writeTraces: [trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/lost`, version: 1, createdOn: 1 })],
      });
      await expect(failing).rejects.toBeInstanceOf(ConflictError);
      expect(await store.findWriteTraces('trace-1', [{ urn, aspect: 'corpUserInfo' }])).toEqual([]);
    });

    it('records where the log ended after a publication, once, on the traces of the proposals named', async () => {
      const { store, reopen } = await open();
      const urn = newUrn();
      const published = trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/p`, version: 1, createdOn: 1 });
      const sameProposal = trace({ urn, aspect: 'corpUserKey', proposalId: `${urn}/p`, version: 1, createdOn: 1 });
      const other = trace({ urn, aspect: 'status', proposalId: `${urn}/q`, version: 1, createdOn: 1 });
      await store.commit({
        mutations: [],
        outbox: [],
        appliedProposalIds: [],
        writeTraces: [published, sameProposal, other],
      });

      await store.recordPublication([`${urn}/p`, `${urn}/unknown`], ENDS);
      await store.recordPublication([], ENDS);
      // Published again (the relay after a crash): the first, tighter bound stays.
      await store.recordPublication(
        [`${urn}/p`],
        [{ topic: 'MetadataChangeLog_Versioned_v1', partition: 0, end: '99' }],
      );
      await store.close();

      const reopened = await reopen();
      const found = await reopened.findWriteTraces('trace-1', [
        { urn, aspect: 'corpUserInfo' },
        { urn, aspect: 'corpUserKey' },
        { urn, aspect: 'status' },
      ]);
      expect(sorted(found)).toEqual(
        sorted([
          { ...published, publishedBefore: ENDS },
          { ...sameProposal, publishedBefore: ENDS },
          unpublished(other),
        ]),
      );
    });
  });
}

const ENDS: readonly LogEnd[] = [
  { topic: 'MetadataChangeLog_Versioned_v1', partition: 0, end: '12' },
  { topic: 'MetadataChangeLog_Versioned_v1', partition: 1, end: '9007199254740993' },
];

function trace(fields: Partial<NewWriteTrace> & Pick<NewWriteTrace, 'urn' | 'aspect' | 'proposalId'>): NewWriteTrace {
  return {
    traceId: 'trace-1',
    status: 'APPLIED',
    version: null,
    createdOn: null,
    errorCode: null,
    error: null,
    changeLogged: true,
    recordedAt: 1_700_000_000_000,
    ...fields,
  };
}

function unpublished(trace: NewWriteTrace): NewWriteTrace & { publishedBefore: null } {
  return { ...trace, publishedBefore: null };
}

function sorted<T extends { urn: string; aspect: string }>(traces: readonly T[]): T[] {
  return [...traces].sort((a, b) => `${a.urn} ${a.aspect}`.localeCompare(`${b.urn} ${b.aspect}`));
}

function put(urn: string, aspect: string, expectedVersion: number, version: number): PutAspect {
  return {
    kind: 'put',
    urn,
    aspect,
    expectedVersion,
    row: {
      version,
      value: { title: `v${version}` },
      systemMetadata: { version: String(version) },
      createdOn: version,
      createdBy: 'urn:li:corpuser:contract-writer',
    },
  };
}
