/** Why part of one exposition was left out of the merge. */
export interface ExpositionConflict {
  /** The metric family concerned. */
  readonly family: string;
  /**
   * `type`: an earlier exposition declared the family with another type — the later one's samples are left out;
   * `series`: a series an earlier exposition already gave — the later sample is left out.
   */
  readonly problem: 'type' | 'series';
}

interface Family {
  readonly name: string;
  /** The `# HELP` line, as the first exposition declaring the family wrote it. */
  help?: string;
  /** The type the first exposition declaring the family gave. */
  type?: string;
  readonly samples: string[];
  /** Name and label set of each sample kept, to leave out a second one of the same series. */
  readonly series: Set<string>;
}

/**
 * Merges Prometheus text expositions — each registry's `metrics()`, when a process serves several registries — into
 * one valid exposition. The text format requires one `# HELP` and one `# TYPE` line per metric family, before its
 * samples, the family's samples together, and each series once; concatenating registries that share a metric name
 * (the change-log consumers of the standalone process all register `strata_change_log_*`) breaks all three. Here each
 * family is written once, where it first appears, with its HELP and TYPE as first declared and the samples of every
 * exposition under it, in order.
 *
 * Series are expected to be told apart by their labels (`consumer`, for instance). What cannot be merged validly is
 * left out and reported to `onConflict`: a family another exposition declared with a different type (its samples),
 * or a series already given (the later sample). Other comment lines are dropped.
 */
export function mergeExpositions(
  texts: readonly string[],
  onConflict: (conflict: ExpositionConflict) => void = () => undefined,
): string {
  const families = new Map<string, Family>();
  const familyNamed = (name: string): Family => {
    let family = families.get(name);
    if (family === undefined) {
      family = { name, samples: [], series: new Set() };
      families.set(name, family);
    }
    return family;
  };
  for (const text of texts) {
    // The family the lines being read belong to, and whether this exposition's samples of it are kept.
    let current: { family: Family; kept: boolean } | undefined;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      if (line.startsWith('#')) {
        const declaration = /^#\s+(HELP|TYPE)\s+(\S+)(?:[ \t](.*))?$/.exec(line);
        if (declaration === null) continue;
        const [, keyword, name = '', rest = ''] = declaration;
        const family = familyNamed(name);
        if (current?.family !== family) current = { family, kept: true };
        if (keyword === 'HELP') {
          family.help ??= line;
        } else {
          const type = rest.trim();
          family.type ??= type;
          if (family.type !== type && current.kept) {
            current.kept = false;
            onConflict({ family: name, problem: 'type' });
          }
        }
        continue;
      }
      const sample = parseSample(line);
      if (current === undefined || !belongsTo(sample.name, current.family.name)) {
        // A sample without a declaration of its own: its own (untyped) family.
        current = { family: familyNamed(sample.name), kept: true };
      }
      if (!current.kept) continue;
      if (current.family.series.has(sample.series)) {
        onConflict({ family: current.family.name, problem: 'series' });
        continue;
      }
      current.family.series.add(sample.series);
      current.family.samples.push(line);
    }
  }
  const lines: string[] = [];
  for (const family of families.values()) {
    if (family.help !== undefined) lines.push(family.help);
    if (family.type !== undefined) lines.push(`# TYPE ${family.name} ${family.type}`);
    lines.push(...family.samples);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** Whether a sample named `sample` is one of family `family`'s (a histogram's or summary's are suffixed). */
function belongsTo(sample: string, family: string): boolean {
  return (
    sample === family || sample === `${family}_bucket` || sample === `${family}_sum` || sample === `${family}_count`
  );
}

/**
 * A sample line's metric name, and its series: the name with its labels in a canonical order (label order does not
 * make another series). A line whose labels do not parse is its own series.
 */
function parseSample(line: string): { name: string; series: string } {
  const name = /^[^\s{]+/.exec(line)?.[0] ?? line;
  if (line[name.length] !== '{') return { name, series: name };
  const labels: string[] = [];
  let at = name.length + 1;
  for (;;) {
    while (line[at] === ' ' || line[at] === ',') at++;
    if (line[at] === '}') break;
    const label = /^([^\s="]+)\s*=\s*"/.exec(line.slice(at));
    if (label === null) return { name, series: line };
    at += label[0].length;
    let value = '';
    for (; at < line.length && line[at] !== '"'; at++) {
      // Escapes (\\, \", \n) are kept as written: equal values are written alike.
      if (line[at] === '\\') value += line[at++] ?? '';
      value += line[at] ?? '';
    }
    if (at >= line.length) return { name, series: line };
    at++;
    labels.push(`${label[1] ?? ''}="${value}"`);
  }
  return { name, series: `${name}{${labels.sort().join(',')}}` };
}
