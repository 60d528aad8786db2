import { BadRequestError } from '@strata/model';
import { decodeOffsetId, encodeOffsetId } from './event-offsets';

describe('offset ids', () => {
  it('are DataHub’s: Base64 of {"<topic>-<partition>": offset}', () => {
    const id = encodeOffsetId('PlatformEvent_v1', [
      { partition: 0, offset: '12' },
      { partition: 1, offset: '0' },
    ]);
    expect(Buffer.from(id, 'base64').toString('utf8')).toBe('{"PlatformEvent_v1-0":12,"PlatformEvent_v1-1":0}');
    expect(decodeOffsetId(id, 'PlatformEvent_v1')).toEqual(
      new Map([
        [0, '12'],
        [1, '0'],
      ]),
    );
  });

  it('keep offsets past what a double holds, and leave other topics’ entries out', () => {
    const id = Buffer.from('{"a-b-c-3": 9007199254740993, "other-0": 1}').toString('base64');
    expect(decodeOffsetId(id, 'a-b-c')).toEqual(new Map([[3, '9007199254740993']]));
    expect(decodeOffsetId(encodeOffsetId('t', []), 't')).toEqual(new Map());
  });

  it('refuse what is no offset id with a 400', () => {
    for (const bad of [
      'not base64!',
      Buffer.from('[1]').toString('base64'),
      Buffer.from('{"t":1}').toString('base64'),
    ]) {
      expect(() => decodeOffsetId(bad, 't')).toThrow(BadRequestError);
    }
    expect(() => decodeOffsetId(Buffer.from('{"t-0":-1}').toString('base64'), 't')).toThrow(
      'Failed to decode and parse offsetId',
    );
  });
});
