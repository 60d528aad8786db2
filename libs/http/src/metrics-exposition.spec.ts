import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { expositionLintProblems, expositionProblems } from '@strata/testing';
import { mergeExpositions, type ExpositionConflict } from './metrics-exposition';

/**
 * Registries as the services of the standalone process make them: each change-log consumer registers the same
 * `strata_change_log_*` metrics in a registry of its own, told apart by their `consumer` label.
 */
function consumerRegistry(consumer: string, applied: number): Registry {
  const registry = new Registry();
  const registers = [registry];
  new Counter({
    name: 'strata_change_log_records_applied_total',
    help: 'Change logs applied, per hook.',
    labelNames: ['consumer', 'hook'],
    registers,
  }).inc({ consumer, hook: 'search' }, applied);
  new Histogram({
    name: 'strata_change_log_lag_seconds',
    help: 'Time from a change log entering the log to a hook having applied it.',
    labelNames: ['consumer', 'hook'],
    buckets: [0.1, 1],
    registers,
  }).observe({ consumer, hook: 'search' }, 0.5);
  new Gauge({ name: `strata_${consumer.replace(/-/g, '_')}_running`, help: 'Its own metric.', registers }).set(1);
  return registry;
}

async function expositionsOf(registries: readonly Registry[]): Promise<string[]> {
  return Promise.all(registries.map((registry) => registry.metrics()));
}

describe('mergeExpositions', () => {
  const consumers = () => [consumerRegistry('search-indexer', 3), consumerRegistry('audit', 5)];

  it('finds the checker failing the registries concatenated (what /metrics served): HELP and TYPE repeat, families split', async () => {
    const concatenated = (await expositionsOf(consumers())).join('\n');

    expect(expositionProblems(concatenated)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('second HELP line for strata_change_log_records_applied_total'),
        expect.stringContaining('second TYPE line for strata_change_log_lag_seconds'),
      ]),
    );
  });

  it('merges registries sharing metric names into one valid exposition: one HELP and TYPE per family, its samples together', async () => {
    const merged = mergeExpositions(await expositionsOf(consumers()));

    expect(expositionProblems(merged)).toEqual([]);
    expect(expositionLintProblems(merged)).toEqual([]);
    expect(merged.match(/^# HELP strata_change_log_records_applied_total /gm)).toHaveLength(1);
    expect(merged.match(/^# TYPE strata_change_log_lag_seconds histogram$/gm)).toHaveLength(1);
    // Every series of every registry is there, under its family.
    expect(merged).toContain(
      [
        '# TYPE strata_change_log_records_applied_total counter',
        'strata_change_log_records_applied_total{consumer="search-indexer",hook="search"} 3',
        'strata_change_log_records_applied_total{consumer="audit",hook="search"} 5',
      ].join('\n'),
    );
    expect(merged).toContain('strata_change_log_lag_seconds_count{consumer="audit",hook="search"} 1');
    expect(merged).toContain('strata_search_indexer_running 1');
    expect(merged).toContain('strata_audit_running 1');
    expect(merged.endsWith('\n')).toBe(true);
  });

  it('serves a series two registries both give once, and reports it', async () => {
    const conflicts: ExpositionConflict[] = [];
    const merged = mergeExpositions(
      await expositionsOf([consumerRegistry('audit', 5), consumerRegistry('audit', 7)]),
      (conflict) => conflicts.push(conflict),
    );

    expect(expositionProblems(merged)).toEqual([]);
    expect(merged).toContain('strata_change_log_records_applied_total{consumer="audit",hook="search"} 5');
    expect(merged).not.toContain('} 7');
    expect(conflicts).toContainEqual({ family: 'strata_change_log_records_applied_total', problem: 'series' });
  });

  it('tells series apart by their label set, whatever the order the labels are written in', () => {
    const conflicts: ExpositionConflict[] = [];
    const merged = mergeExpositions(
      [
        '# HELP things_total Things.\n# TYPE things_total counter\nthings_total{a="1",b="2"} 1\n',
        '# HELP things_total Things.\n# TYPE things_total counter\nthings_total{b="2",a="1"} 2\nthings_total{a="1",b="3"} 3\n',
      ],
      (conflict) => conflicts.push(conflict),
    );

    expect(merged).toBe(
      '# HELP things_total Things.\n# TYPE things_total counter\nthings_total{a="1",b="2"} 1\nthings_total{a="1",b="3"} 3\n',
    );
    expect(conflicts).toEqual([{ family: 'things_total', problem: 'series' }]);
  });

  it('leaves out the samples of a family another registry declared with another type, and reports it', () => {
    const conflicts: ExpositionConflict[] = [];
    const merged = mergeExpositions(
      [
        '# HELP jobs Jobs.\n# TYPE jobs gauge\njobs{kind="a"} 1\n',
        '# HELP jobs Jobs.\n# TYPE jobs counter\njobs{kind="b"} 2\n# HELP other Other.\n# TYPE other gauge\nother 4\n',
      ],
      (conflict) => conflicts.push(conflict),
    );

    expect(merged).toBe(
      '# HELP jobs Jobs.\n# TYPE jobs gauge\njobs{kind="a"} 1\n# HELP other Other.\n# TYPE other gauge\nother 4\n',
    );
    expect(conflicts).toEqual([{ family: 'jobs', problem: 'type' }]);
  });

  it('keeps label values with escaped quotes, backslashes and line feeds intact', async () => {
    const registry = new Registry();
    new Counter({ name: 'odd_total', help: 'Odd.', labelNames: ['value'], registers: [registry] }).inc({
      value: 'a "quoted" \\ back\nslash',
    });
    const text = await registry.metrics();

    const merged = mergeExpositions([text, text]);

    expect(expositionProblems(merged)).toEqual([]);
    expect(merged).toContain('odd_total{value="a \\"quoted\\" \\\\ back\\nslash"} 1');
  });

  it('merges nothing into nothing', () => {
    expect(mergeExpositions([])).toBe('');
    expect(mergeExpositions(['', '\n'])).toBe('');
  });
});
