import { describe, expect, it } from '@jest/globals';
import { ConflictError } from '@strata/model';

import type { AspectStore, OutboxRecord, PutAspect } from './aspect-store';
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
      await store.commit({ mutations: [], outbox: [record(urn)], appliedProposalIds: [], writeTraces: [first] });
      await store.recordPublication(await lastOutboxId(store, urn), ENDS);
      const second = trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/second`, version: 2, createdOn: 2 });
      const inOneCommit = trace({ urn, aspect: 'status', proposalId: `${urn}/a`, version: 1, createdOn: 3 });
      const laterInTheSameCommit = { ...inOneCommit, proposalId: `${urn}/b`, version: 2, createdOn: 4 };
      await store.commit({
        mutations: [],
        outbox: [record(urn)],
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

    it('publishes the traces of the commits whose outbox records a publication covers, with its first bound', async () => {
      const { store, reopen } = await open();
      const urn = newUrn();
      const published = trace({ urn, aspect: 'corpUserInfo', proposalId: `${urn}/p`, version: 1, createdOn: 1 });
      const last = trace({ urn, aspect: 'corpUserKey', proposalId: `${urn}/q`, version: 1, createdOn: 1 });
      const later = trace({ urn, aspect: 'status', proposalId: `${urn}/r`, version: 1, createdOn: 1 });
      const nothingToPublish = trace({ urn, aspect: 'ownership', proposalId: `${urn}/s`, changeLogged: false });
      const outboxRecords = [record(urn), record(urn)];
      const refused = trace({ urn, aspect: 'globalTags', proposalId: `${urn}/t`, status: 'REJECTED' });
      const refusedWithIt = { ...refused, changeLogged: false, errorCode: 'validation', error: 'bad' };
      await store.commit({
        mutations: [],
        outbox: outboxRecords,
        appliedProposalIds: [],
        writeTraces: [published, refusedWithIt],
      });
      const firstCommitEnd = await lastOutboxId(store, urn);
      await store.commit({ mutations: [], outbox: [], appliedProposalIds: [], writeTraces: [nothingToPublish] });
      await store.commit({ mutations: [], outbox: [record(urn)], appliedProposalIds: [], writeTraces: [later] });
      const secondCommitEnd = await lastOutboxId(store, urn);
      await store.commit({ mutations: [], outbox: [record(urn)], appliedProposalIds: [], writeTraces: [last] });
      const keys = [
        { urn, aspect: 'corpUserInfo' },
        { urn, aspect: 'corpUserKey' },
        { urn, aspect: 'status' },
        { urn, aspect: 'ownership' },
        { urn, aspect: 'globalTags' },
      ];

      await store.recordPublication(firstCommitEnd, ENDS);
      await store.recordPublication('not-an-outbox-id', LATER_ENDS);
      // Published again (the relay after a crash): the first, tighter bound stays.
      await store.recordPublication(firstCommitEnd, LATER_ENDS);
      await store.close();

      const reopened = await reopen();
      expect(sorted(await reopened.findWriteTraces('trace-1', keys))).toEqual(
        sorted([
          { ...published, publishedBefore: ENDS },
          unpublished(last),
          unpublished(later),
          unpublished(nothingToPublish),
          unpublished(refusedWithIt),
        ]),
      );

      // A later publication covers the later commits, not the one that appended nothing, and not the first again.
      await reopened.recordPublication(secondCommitEnd, LATER_ENDS);
      await reopened.recordPublication(await lastOutboxId(reopened, urn), LAST_ENDS);
      expect(sorted(await reopened.findWriteTraces('trace-1', keys))).toEqual(
        sorted([
          { ...published, publishedBefore: ENDS },
          { ...last, publishedBefore: LAST_ENDS },
          { ...later, publishedBefore: LATER_ENDS },
          unpublished(nothingToPublish),
          unpublished(refusedWithIt),
        ]),
      );
    });
  });
}

const ENDS: readonly LogEnd[] = [
  { topic: 'MetadataChangeLog_Versioned_v1', partition: 0, end: '12' },
  { topic: 'MetadataChangeLog_Versioned_v1', partition: 1, end: '9007199254740993' },
];

const LATER_ENDS: readonly LogEnd[] = [{ topic: 'MetadataChangeLog_Versioned_v1', partition: 0, end: '99' }];
const LAST_ENDS: readonly LogEnd[] = [{ topic: 'MetadataChangeLog_Versioned_v1', partition: 0, end: '120' }];

/** An outbox record of a test entity (keyed by its URN, so that a test finds its own among the pending ones). */
function record(urn: string): OutboxRecord {
  return { topic: 'MetadataChangeLog_Versioned_v1', key: urn, value: Buffer.from('change'), headers: {} };
}

/** The id of the last pending outbox record of `urn`: what a relay that published through it would name. */
async function lastOutboxId(store: AspectStore, urn: string): Promise<string> {
  const pending = (await store.pendingOutbox(100_000)).filter((pendingRecord) => pendingRecord.key === urn);
  const last = pending[pending.length - 1];
  if (last === undefined) throw new Error(`No pending outbox record of ${urn}`);
  return last.id;
}

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
