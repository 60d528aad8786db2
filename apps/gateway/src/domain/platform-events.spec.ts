import { BadRequestError } from '@strata/model';
import { platformEventRecord } from './platform-events';

describe('platformEventRecord', () => {
  it('takes the payload as Rest.li writes bytes: one character per byte', () => {
    const utf8 = Buffer.from('{"name":"é"}', 'utf8');
    const record = platformEventRecord({
      header: { timestampMillis: 7 },
      name: 'entityChangeEvent',
      payload: { value: utf8.toString('latin1'), contentType: 'application/json' },
    });
    expect(record).toEqual({
      header: { timestampMillis: 7 },
      name: 'entityChangeEvent',
      payload: { value: utf8, contentType: 'application/json' },
    });
  });

  it('refuses a character that is no byte', () => {
    expect(() =>
      platformEventRecord({
        header: { timestampMillis: 7 },
        name: 'n',
        payload: { value: 'ok ☃', contentType: 'application/json' },
      }),
    ).toThrow(BadRequestError);
  });
});
