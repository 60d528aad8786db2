import { isW3cTraceId, randomHex, traceparentOf, writeTraceIdOf } from './write-trace-id';

const fixed = (hex: string) => (bytes: number) => hex.padEnd(bytes * 2, '0').slice(0, bytes * 2);

describe('the trace id of a write', () => {
  it('is the request’s own when it is a W3C trace id (the client’s traceparent)', () => {
    const given = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(writeTraceIdOf(given, 1_700_000_000_000, fixed('ab'))).toBe(given);
  });

  it('is made as DataHub makes one otherwise: the time in microseconds, then random digits', () => {
    const id = writeTraceIdOf('a-request-id', 1_700_000_000_123, fixed('0123456789abcdef'));
    expect(id).toBe(`${(1_700_000_000_123_000).toString(16).padStart(16, '0')}0123456789abcdef`);
    expect(isW3cTraceId(id)).toBe(true);
    // DataHub's clients read the time back from the first 16 digits.
    expect(Number(BigInt(`0x${id.slice(0, 16)}`) / 1000n)).toBe(1_700_000_000_123);
  });

  it('never takes a client id that cannot travel in a traceparent, nor the all-zero id', () => {
    for (const given of ['', 'X-Request-Id-of-a-client', '4BF92F3577B34DA6A3CE929D0E0E4736', '0'.repeat(32)]) {
      expect(writeTraceIdOf(given, 0, fixed('ff'))).not.toBe(given);
    }
    expect(isW3cTraceId(writeTraceIdOf('x', 0, fixed('00')))).toBe(true);
  });

  it('is answered in a traceparent DataHub’s emitter reads the trace id from (its second field)', () => {
    const header = traceparentOf('4bf92f3577b34da6a3ce929d0e0e4736', fixed('00f067aa0ba902b7'));
    expect(header).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(header.split('-')[1]).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceparentOf('4bf92f3577b34da6a3ce929d0e0e4736', fixed('00'))).toMatch(
      /^00-[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-01$/,
    );
  });
});

describe('the random digits of ids', () => {
  it('are as many as asked, and never repeat across a refill of the pool', () => {
    const seen = new Set<string>();
    // 4096-byte pool: 1,000 draws of 8 bytes cross it twice.
    for (let draw = 0; draw < 1_000; draw++) {
      const hex = randomHex(8);
      expect(hex).toMatch(/^[0-9a-f]{16}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(1_000);
    expect(randomHex(5000)).toMatch(/^[0-9a-f]{10000}$/);
  });
});
