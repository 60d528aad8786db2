import { useEffect, useState } from 'react';

/** Modules already loaded, by their loader: a view shown again renders at once. */
const loaded = new Map<() => Promise<unknown>, unknown>();

/** A code-split module as a view uses it: the module once loaded, or the failure to load it. */
export interface Chunk<T> {
  readonly module?: T;
  readonly error?: unknown;
}

/**
 * Loads a code-split module (`() => import('./view')`) for a view, without Suspense: React holds back revealing a
 * suspended boundary by some 300 ms to avoid flicker, which a page opened straight at a tab would wait for on top
 * of its reads. The view renders its own loading state until the module is there (at once, when it was loaded before).
 */
export function useChunk<T>(load: () => Promise<T>): Chunk<T> {
  const [state, setState] = useState<Chunk<T>>(() => (loaded.has(load) ? { module: loaded.get(load) as T } : {}));
  const ready = state.module !== undefined;
  useEffect(() => {
    if (ready) return undefined;
    let live = true;
    load().then(
      (module) => {
        loaded.set(load, module);
        if (live) setState({ module });
      },
      (error: unknown) => {
        if (live) setState({ error });
      },
    );
    return () => {
      live = false;
    };
  }, [load, ready]);
  return state;
}
