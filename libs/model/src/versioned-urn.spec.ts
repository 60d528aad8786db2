import { BadRequestError } from './errors';
import { parseVersionedUrnKey, parseVersionStamp } from './versioned-urn';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';

function refusal(action: () => unknown): BadRequestError {
  try {
    action();
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('expected a BadRequestError');
}

describe('parseVersionedUrnKey', () => {
  it('given a key as DataHub writes it, when read, then it answers the URN and the stamp', () => {
    expect(parseVersionedUrnKey(`(${DATASET} , datasetProperties:2;status:0)`)).toEqual({
      urn: DATASET,
      versionStamp: 'datasetProperties:2;status:0',
    });
    expect(parseVersionedUrnKey('(urn:li:corpuser:jdoe , )')).toEqual({
      urn: 'urn:li:corpuser:jdoe',
      versionStamp: '',
    });
  });

  it('given a URN holding the separator, when read, then the stamp is what follows the last one', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,a , b,PROD)';
    expect(parseVersionedUrnKey(`(${urn} , status:1)`)).toEqual({ urn, versionStamp: 'status:1' });
  });

  it("given the stamp null (Java's text of a missing stamp), when read, then the key names no version", () => {
    expect(parseVersionedUrnKey('(urn:li:corpuser:jdoe , null)').versionStamp).toBe('');
  });

  it('given text of another shape, when read, then it is a 400 naming the expected form', () => {
    for (const text of [DATASET, `(${DATASET})`, `${DATASET} , status:1`, '( , status:1)', `(${DATASET} , status:1`]) {
      expect(refusal(() => parseVersionedUrnKey(text)).message).toMatch(/Invalid versioned URN/);
    }
  });
});

describe('parseVersionStamp', () => {
  it('given pairs separated by semicolons, when read, then it answers each aspect with its version', () => {
    expect([...parseVersionStamp('datasetProperties:3;status:0;ownership:-1')]).toEqual([
      ['datasetProperties', 3],
      ['status', 0],
      ['ownership', -1],
    ]);
  });

  it('given a blank stamp, a trailing separator or an aspect named twice, when read, then it reads as Java does', () => {
    expect(parseVersionStamp('').size).toBe(0);
    expect(parseVersionStamp('  ').size).toBe(0);
    expect([...parseVersionStamp('status:1;')]).toEqual([['status', 1]]);
    expect([...parseVersionStamp('status:1;status:2')]).toEqual([['status', 2]]);
  });

  it("given a malformed pair or version, when read, then it is a 400 in DataHub's words", () => {
    for (const stamp of ['status', 'status:1:2', ':1', 'status:1;;ownership:2', 'a:1;b']) {
      expect(refusal(() => parseVersionStamp(stamp)).message).toBe(`Invalid version stamp cannot be parsed: ${stamp}`);
    }
    for (const [stamp, version] of [
      ['status:one', 'one'],
      ['status:', ''],
      ['status:1.5', '1.5'],
      ['status:99999999999999999999', '99999999999999999999'],
    ]) {
      expect(refusal(() => parseVersionStamp(stamp!)).message).toBe(`Invalid value for aspect version: ${version}`);
    }
  });
});
