import { Lifecycle } from './lifecycle';

/** Components that record what happens to them. */
function recorder() {
  const events: string[] = [];
  const component = (name: string, options: { failStart?: boolean; failStop?: boolean } = {}) => ({
    start: () => {
      events.push(`start ${name}`);
      return options.failStart === true ? Promise.reject(new Error(`${name} cannot start`)) : Promise.resolve();
    },
    stop: () => {
      events.push(`stop ${name}`);
      return options.failStop === true ? Promise.reject(new Error(`${name} cannot stop`)) : Promise.resolve();
    },
  });
  const resource = (name: string) => ({
    open: () => {
      events.push(`open ${name}`);
      return Promise.resolve(name);
    },
    close: (opened: string) => {
      events.push(`close ${opened}`);
    },
  });
  return { events, component, resource };
}

describe('Lifecycle', () => {
  it('starts in order and stops in reverse order', async () => {
    const { events, component, resource } = recorder();
    const lifecycle = new Lifecycle();
    const log = resource('log');
    await lifecycle.start(async (scope) => {
      expect(await scope.open('log', log.open, log.close)).toBe('log');
      await scope.start('writer', component('writer'));
      await scope.start('gateway', component('gateway'));
    });
    await lifecycle.stop();
    expect(events).toEqual(['open log', 'start writer', 'start gateway', 'stop gateway', 'stop writer', 'close log']);
  });

  it('unwinds a start that fails halfway, stopping what started (the failing one too) and rethrowing', async () => {
    const { events, component, resource } = recorder();
    const lifecycle = new Lifecycle();
    const log = resource('log');
    await expect(
      lifecycle.start(async (scope) => {
        await scope.open('log', log.open, log.close);
        await scope.start('writer', component('writer'));
        await scope.start('indexer', component('indexer', { failStart: true }));
        await scope.start('gateway', component('gateway'));
      }),
    ).rejects.toThrow('indexer cannot start');
    expect(events).toEqual(['open log', 'start writer', 'start indexer', 'stop indexer', 'stop writer', 'close log']);
    await lifecycle.stop();
    expect(events).toHaveLength(6);
  });

  it('unwinds when an open fails, and when the sequence itself throws', async () => {
    const { events, resource } = recorder();
    const lifecycle = new Lifecycle();
    const log = resource('log');
    await expect(
      lifecycle.start(async (scope) => {
        await scope.open('log', log.open, log.close);
        await scope.open(
          'store',
          () => Promise.reject(new Error('store unreachable')),
          () => undefined,
        );
      }),
    ).rejects.toThrow('store unreachable');
    expect(events).toEqual(['open log', 'close log']);

    const second = new Lifecycle();
    await expect(
      second.start(async (scope) => {
        await scope.open('log', log.open, log.close);
        throw new Error('port in use');
      }),
    ).rejects.toThrow('port in use');
    expect(events).toEqual(['open log', 'close log', 'open log', 'close log']);
  });

  it('tries every stop when one fails, logs each failure, and then rejects', async () => {
    const { events, component } = recorder();
    const errors: string[] = [];
    const lifecycle = new Lifecycle({ error: (_details, message) => errors.push(message) });
    await lifecycle.start(async (scope) => {
      await scope.start('writer', component('writer'));
      await scope.start('indexer', component('indexer', { failStop: true }));
      await scope.start('gateway', component('gateway'));
    });
    await expect(lifecycle.stop()).rejects.toThrow('indexer cannot stop');
    expect(events.slice(3)).toEqual(['stop gateway', 'stop indexer', 'stop writer']);
    expect(errors).toEqual(['stopping indexer failed']);
    await expect(lifecycle.stop()).rejects.toThrow('indexer cannot stop');
  });

  it('closes a resource that finished opening after a stop, and ends the start sequence', async () => {
    const { events, resource } = recorder();
    const lifecycle = new Lifecycle();
    const store = resource('store');
    let release = (): void => undefined;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const starting = lifecycle.start(async (scope) => {
      await scope.open(
        'store',
        async () => {
          await slow;
          return store.open();
        },
        store.close,
      );
      await scope.open(
        'never',
        () => Promise.resolve('never'),
        () => undefined,
      );
    });
    await lifecycle.stop();
    release();
    await expect(starting).rejects.toThrow('Cannot start store: the process is stopping');
    expect(events).toEqual(['open store', 'close store']);
  });
});
