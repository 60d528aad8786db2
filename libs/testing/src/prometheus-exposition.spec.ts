import { expositionLintProblems, expositionProblems } from './prometheus-exposition';

const valid = [
  '# HELP jobs_total Jobs done.',
  '# TYPE jobs_total counter',
  'jobs_total{kind="a"} 1',
  'jobs_total{kind="b \\"quoted\\""} 2 1700000000000',
  '# HELP wait_seconds Waits.',
  '# TYPE wait_seconds histogram',
  'wait_seconds_bucket{le="1"} 1',
  'wait_seconds_bucket{le="+Inf"} 1',
  'wait_seconds_sum 0.5',
  'wait_seconds_count 1',
  '# HELP lag_seconds Lag.',
  '# TYPE lag_seconds gauge',
  'lag_seconds NaN',
  '',
].join('\n');

describe('expositionProblems', () => {
  it('accepts a valid exposition', () => {
    expect(expositionProblems(valid)).toEqual([]);
    expect(expositionLintProblems(valid)).toEqual([]);
  });

  it.each([
    ['a second HELP', `${valid}# HELP jobs_total Again.\n`, 'second HELP line for jobs_total'],
    [
      'a second TYPE',
      valid.replace('# TYPE jobs_total counter', '# TYPE jobs_total counter\n# TYPE jobs_total counter'),
      'second TYPE line for jobs_total',
    ],
    [
      'a TYPE after the samples',
      valid.replace('jobs_total{kind="a"} 1', 'jobs_total{kind="a"} 1\n# TYPE jobs_total counter'),
      'TYPE of jobs_total after its samples',
    ],
    ['samples apart', `${valid}jobs_total{kind="c"} 3\n`, 'samples of jobs_total are not together'],
    [
      'a series twice',
      valid.replace('jobs_total{kind="a"} 1', 'jobs_total{kind="a"} 1\njobs_total{kind="a"} 4'),
      'series jobs_total{kind="a"} given twice',
    ],
    ['an invalid metric name', `${valid}2jobs 1\n`, "invalid metric name '2jobs'"],
    ['an invalid label name', `${valid}other{bad-name="x"} 1\n`, "invalid label name 'bad-name'"],
    ['a reserved label name', `${valid}other{__name="x"} 1\n`, "label name '__name' is reserved"],
    ['an invalid value', `${valid}other 1,5\n`, 'invalid sample value'],
    ['an unknown type', `${valid}# TYPE other meter\n`, "unknown type 'meter'"],
    [
      'a bucket without le',
      valid.replace('wait_seconds_sum', 'wait_seconds_bucket 1\nwait_seconds_sum'),
      "histogram bucket without 'le'",
    ],
    ['no final line feed', valid.trimEnd(), 'does not end with a line feed'],
  ])('finds %s', (_name, text, problem) => {
    expect(expositionProblems(text)).toEqual(expect.arrayContaining([expect.stringContaining(problem)]));
  });
});

describe('expositionLintProblems', () => {
  it.each([
    ['no help', '# TYPE jobs_total counter\njobs_total 1\n', 'no help text'],
    ['a counter without _total', '# HELP jobs Jobs.\n# TYPE jobs counter\njobs 1\n', 'should have "_total" suffix'],
    [
      'a gauge with _total',
      '# HELP jobs_total Jobs.\n# TYPE jobs_total gauge\njobs_total 1\n',
      'should not have "_total"',
    ],
    [
      'a non-base unit',
      '# HELP wait_milliseconds Wait.\n# TYPE wait_milliseconds gauge\nwait_milliseconds 1\n',
      'use base unit "seconds"',
    ],
    ['an abbreviated unit', '# HELP wait_ms Wait.\n# TYPE wait_ms gauge\nwait_ms 1\n', 'abbreviated units'],
    ['camelCase', '# HELP waitTime Wait.\n# TYPE waitTime gauge\nwaitTime 1\n', 'snake_case'],
    ['a type in the name', '# HELP wait_gauge Wait.\n# TYPE wait_gauge gauge\nwait_gauge 1\n', "include type 'gauge'"],
  ])('finds %s', (_name, text, problem) => {
    expect(expositionLintProblems(text)).toEqual(expect.arrayContaining([expect.stringContaining(problem)]));
  });
});
