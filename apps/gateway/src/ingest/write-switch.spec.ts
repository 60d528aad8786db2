import type { RequestContext, RouteCall } from '@strata/http';
import { UnavailableError } from '@strata/model';
import { WRITABLE_MARK, WRITE_SWITCH_TTL_MS, WriteSwitch } from './write-switch';

const context = { requestId: 'r', traceId: 't', actor: 'urn:li:corpuser:__datahub_system' } as RequestContext;

/** A writer whose marks live in a map, counting the reads it answers. */
function writer() {
  const marks = new Map<string, string>();
  let reads = 0;
  const call = (request: RouteCall) => {
    if (request.method === 'GET') {
      reads += 1;
      const names = (request.query?.['name'] ?? []) as string[];
      return Promise.resolve({ marks: Object.fromEntries(names.map((name) => [name, marks.get(name) ?? null])) });
    }
    const body = request.body as { name: string; value: string };
    marks.set(body.name, body.value);
    return Promise.resolve(body);
  };
  return { call, marks, reads: () => reads };
}

describe('the write switch', () => {
  it('is on when never set, off once set off, and refuses writes with a 503 naming the switch', async () => {
    const store = writer();
    let now = 0;
    const writes = new WriteSwitch({ call: store.call, context, now: () => now });
    expect(await writes.isOn()).toBe(true);
    await writes.set(false, context);
    expect(store.marks.get(WRITABLE_MARK)).toBe('false');
    const refusal = await writes.assertOn().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnavailableError);
    expect((refusal as Error).message).toMatch(/^Writes are switched off \(POST \/entities\?action=setWritable/);
    await writes.set(true, context);
    now += 1;
    await expect(writes.assertOn()).resolves.toBeUndefined();
  });

  it('reads the switch again once its last read is a second old: another gateway’s change is followed', async () => {
    const store = writer();
    let now = 0;
    const here = new WriteSwitch({ call: store.call, context, now: () => now });
    const elsewhere = new WriteSwitch({ call: store.call, context, now: () => now });
    expect(await here.isOn()).toBe(true);
    await elsewhere.set(false, context);
    now += WRITE_SWITCH_TTL_MS - 1;
    expect(await here.isOn()).toBe(true);
    expect(store.reads()).toBe(1);
    now += 1;
    expect(await here.isOn()).toBe(false);
    expect(store.reads()).toBe(2);
  });

  it('shares one read among the requests that find the last one old, and a read older than a set never undoes it', async () => {
    const store = writer();
    let release: (() => void) | undefined;
    // A writer whose reads wait until released: the set below lands while one is in flight.
    const slow = (request: RouteCall): Promise<unknown> =>
      request.method === 'GET'
        ? new Promise<void>((resolve) => (release = resolve)).then((): Promise<unknown> => store.call(request))
        : store.call(request);
    const writes = new WriteSwitch({ call: slow, context, now: () => 0 });
    const first = writes.isOn();
    const second = writes.isOn();
    await writes.set(false, context);
    release?.();
    expect(await first).toBe(false);
    expect(await second).toBe(false);
    expect(store.reads()).toBe(1);
    expect(await writes.isOn()).toBe(false);
  });
});
