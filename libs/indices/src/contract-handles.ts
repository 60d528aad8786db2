import { afterEach } from '@jest/globals';

/** What a contract suite gets from an adapter for one test. */
export interface IndexUnderTest<Index extends { close(): Promise<void> }> {
  readonly index: Index;
  /**
   * Opens another handle on the same data (same file, same cluster and index name), as another process would. Called
   * after `index` was closed (durability); the suite closes every handle it gets. `close()` must tolerate being called
   * again.
   */
  reopen(): Promise<Index>;
  /** Releases whatever `create` set up besides the index (temporary files, an index to drop). Called last. */
  dispose?(): Promise<void>;
}

/**
 * The handle bookkeeping the index contract suites share: `open` creates one test's index through `create`; after each
 * test, every handle it gave out (the index and each reopened one, newest first) is closed, then `dispose` runs (an
 * `afterEach` registered where it is called).
 */
export function trackedIndices<Index extends { close(): Promise<void> }>(
  create: () => Promise<IndexUnderTest<Index>>,
): () => Promise<{ index: Index; reopen: () => Promise<Index> }> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return async () => {
    const underTest = await create();
    const handles: Index[] = [underTest.index];
    cleanups.push(async () => {
      for (const handle of handles.reverse()) await handle.close();
      await underTest.dispose?.();
    });
    return {
      index: underTest.index,
      reopen: async () => {
        const handle = await underTest.reopen();
        handles.push(handle);
        return handle;
      },
    };
  };
}
