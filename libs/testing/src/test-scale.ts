/**
 * How large the data sets of the end-to-end suites are. `npm test` keeps them small — a behaviour is proved on a few
 * hundred entities as well as on a hundred thousand, and the suite must stay fast; `STRATA_TEST_SCALE=large` runs
 * them at the sizes they were first written for (thousands of datasets and events), and `npm run bench` measures the
 * same operations at scale, against a baseline.
 */
export type TestScale = 'small' | 'large';

export function testScale(): TestScale {
  const scale = process.env['STRATA_TEST_SCALE'] ?? 'small';
  if (scale !== 'small' && scale !== 'large') {
    throw new Error(`STRATA_TEST_SCALE must be small or large, got ${scale}`);
  }
  return scale;
}

/** `small` at the default scale, `large` with STRATA_TEST_SCALE=large. */
export function scaled(small: number, large: number): number {
  return testScale() === 'large' ? large : small;
}
