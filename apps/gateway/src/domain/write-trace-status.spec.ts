import {
  passedEvery,
  traceIdOfPath,
  traceStatusOf,
  type RecordedWrite,
  type SearchIndexing,
  type TraceStatusOptions,
} from './write-trace-status';

const topic = 'MetadataChangeLog_Versioned_v1';
const ends = [
  { topic, partition: 0, end: '10' },
  { topic, partition: 1, end: '4' },
];

const applied = (fields: Partial<Extract<RecordedWrite, { seen: true }>> = {}): RecordedWrite => ({
  seen: true,
  status: 'APPLIED',
  error: null,
  current: true,
  changeLogged: true,
  publishedBefore: ends,
  ...fields,
});

const indexedUpTo = (zero: string, one: string): SearchIndexing => ({
  kind: 'positions',
  positions: [
    { topic, partition: 0, end: zero },
    { topic, partition: 1, end: one },
  ],
});

const options = (fields: Partial<TraceStatusOptions> = {}): TraceStatusOptions => ({
  timeseries: false,
  search: indexedUpTo('10', '4'),
  detailed: false,
  ...fields,
});

describe('the status of a traced write', () => {
  it('is active in both storages once applied, still the latest, and passed by the search indexer everywhere', () => {
    expect(traceStatusOf(applied(), options())).toEqual({
      success: true,
      primaryStorage: { writeStatus: 'ACTIVE_STATE' },
      searchStorage: { writeStatus: 'ACTIVE_STATE' },
    });
  });

  it('is pending in search until the indexer passed, in every partition, where the log ended at publication', () => {
    for (const search of [
      indexedUpTo('9', '4'),
      indexedUpTo('10', '3'),
      { kind: 'positions', positions: [] } as const,
    ]) {
      expect(traceStatusOf(applied(), options({ search })).searchStorage).toEqual({
        writeStatus: 'PENDING',
        writeMessage: 'Pending search index write.',
      });
    }
    expect(traceStatusOf(applied({ publishedBefore: null }), options()).searchStorage.writeStatus).toBe('PENDING');
    expect(traceStatusOf(applied(), options({ search: indexedUpTo('11', '400') })).searchStorage.writeStatus).toBe(
      'ACTIVE_STATE',
    );
  });

  it('is pending in both until the writer applied it', () => {
    expect(traceStatusOf({ seen: false }, options())).toEqual({
      success: true,
      primaryStorage: { writeStatus: 'PENDING', writeMessage: 'Not applied yet.' },
      searchStorage: { writeStatus: 'PENDING', writeMessage: 'Pending primary storage write.' },
    });
  });

  it('is an error with the reason when the writer refused it, the reason as an exception when detailed', () => {
    const refused = applied({ status: 'REJECTED', error: 'Unknown aspect x for entity dataset', current: false });
    expect(traceStatusOf(refused, options())).toEqual({
      success: false,
      primaryStorage: { writeStatus: 'ERROR', writeMessage: 'Unknown aspect x for entity dataset' },
      searchStorage: { writeStatus: 'ERROR', writeMessage: 'Primary storage write failed.' },
    });
    expect(traceStatusOf(refused, options({ detailed: true })).primaryStorage).toEqual({
      writeStatus: 'ERROR',
      writeMessage: 'Unknown aspect x for entity dataset',
      writeExceptions: [{ message: 'Unknown aspect x for entity dataset' }],
    });
  });

  it('is a no-op when the writer found the same value, and historic once a later write replaced it', () => {
    expect(traceStatusOf(applied({ status: 'UNCHANGED', current: false }), options())).toEqual({
      success: true,
      primaryStorage: { writeStatus: 'NO_OP' },
      searchStorage: { writeStatus: 'NO_OP' },
    });
    expect(traceStatusOf(applied({ current: false }), options({ search: indexedUpTo('0', '0') }))).toEqual({
      success: true,
      primaryStorage: { writeStatus: 'HISTORIC_STATE' },
      searchStorage: { writeStatus: 'HISTORIC_STATE' },
    });
  });

  it('is not traced in search for a timeseries aspect or a deployment without a search index; unknown when unreadable', () => {
    expect(traceStatusOf(applied({ changeLogged: false }), options({ timeseries: true })).searchStorage).toEqual({
      writeStatus: 'TRACE_NOT_IMPLEMENTED',
      writeMessage: 'The search index holds no timeseries values.',
    });
    expect(traceStatusOf(applied(), options({ search: { kind: 'absent' } })).searchStorage.writeStatus).toBe(
      'TRACE_NOT_IMPLEMENTED',
    );
    expect(traceStatusOf(applied(), options({ search: { kind: 'unreadable', reason: 'indexer down' } }))).toMatchObject(
      { success: true, searchStorage: { writeStatus: 'UNKNOWN', writeMessage: 'indexer down' } },
    );
  });

  it('compares positions as offsets, beyond 2^53', () => {
    const big = [{ topic, partition: 0, end: '9007199254740993' }];
    expect(passedEvery([{ topic, partition: 0, end: '9007199254740992' }], big)).toBe(false);
    expect(passedEvery([{ topic, partition: 0, end: '9007199254740993' }], big)).toBe(true);
  });
});

describe('the trace id of the path', () => {
  it('is the 32 hexadecimal digits alone, or the second field of a traceparent', () => {
    expect(traceIdOfPath('4bf92f3577b34da6a3ce929d0e0e4736')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceIdOfPath('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01')).toBe(
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
    for (const bad of ['', 'not-a-trace', '4bf92f3577b34da6', 'g'.repeat(32)])
      expect(traceIdOfPath(bad)).toBeUndefined();
  });
});
