import type { AspectStore, StoredAspect } from '@strata/store';

/** Most rows {@link allLatest} reads: far more policies, tokens or metadata tests than any deployment keeps. */
export const MAX_LISTED_ROWS = 100_000;
const PAGE = 500;

/** Every latest value of a listed aspect (policies, tokens, metadata tests), page by page, up to MAX_LISTED_ROWS. */
export async function allLatest(store: AspectStore, aspect: string): Promise<StoredAspect[]> {
  const rows: StoredAspect[] = [];
  let afterUrn: string | undefined;
  for (;;) {
    const page = await store.listLatest(aspect, { limit: PAGE, ...(afterUrn === undefined ? {} : { afterUrn }) });
    rows.push(...page);
    if (page.length < PAGE || rows.length >= MAX_LISTED_ROWS) return rows;
    afterUrn = page[page.length - 1]?.urn;
  }
}
