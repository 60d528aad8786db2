/** Runs synchronous database work as a promise, so that a failure rejects instead of throwing at the caller. */
export function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(work());
  });
}
