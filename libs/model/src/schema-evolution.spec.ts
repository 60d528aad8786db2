/**
 * Schema changes are additive (`docs/conventions.md`, `schemas/README.md`): today's schemas must read everything written with
 * any earlier committed version of them. For every commit that touched `schemas/`, every named type present then and
 * now is checked with Avro schema resolution (reader = today, writer = then): a new field needs a default, an enum
 * keeps its symbols, a type changes only by promotion. The history comes from git, so no baseline is kept by hand.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Type } from 'avsc';
import { readSchemas, type SchemaFile } from '@strata/schemas';

const repository = resolve(__dirname, '..', '..', '..');
const trees = ['aspects', 'events'] as const;

function git(args: string[]): string {
  return execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/**
 * Why the full history of schemas/ is not here (a shallow clone, or no git repository at all), or undefined when it
 * is. The check is never skipped for want of it: a clone without the history fails, saying how to get it.
 */
function missingHistory(): string | undefined {
  let shallow: string;
  try {
    shallow = git(['rev-parse', '--is-shallow-repository']).trim();
  } catch (error) {
    return `${repository} is not a git repository with history (${String(error).split('\n')[0] ?? ''}): clone it`;
  }
  return shallow === 'false'
    ? undefined
    : `${repository} is a shallow clone: the schemas' history is needed (git fetch --unshallow)`;
}

/** Loads schema files into one registry of named types, in whatever order their references allow. */
function loadTypes(files: readonly SchemaFile[]): Record<string, Type> {
  const registry: Record<string, Type> = {};
  let pending = [...files];
  while (pending.length > 0) {
    const failed = pending.filter((file) => {
      const attempt = { ...registry };
      try {
        Type.forSchema(file.schema as Parameters<typeof Type.forSchema>[0], { registry: attempt });
        Object.assign(registry, attempt);
        return false;
      } catch {
        return true;
      }
    });
    if (failed.length === pending.length) throw new Error(`Cannot load ${failed.map((file) => file.file).join(', ')}`);
    pending = failed;
  }
  return registry;
}

/** The files of one schema tree as they were at a commit, read in one `git cat-file --batch`. */
function filesAt(commit: string, tree: (typeof trees)[number]): SchemaFile[] {
  const paths = git(['ls-tree', '-r', '--name-only', commit, '--', `schemas/${tree}`])
    .split('\n')
    .filter((path) => path.endsWith('.avsc'));
  if (paths.length === 0) return [];
  const output = spawnSync('git', ['-C', repository, 'cat-file', '--batch'], {
    input: paths.map((path) => `${commit}:${path}`).join('\n') + '\n',
    maxBuffer: 256 * 1024 * 1024,
  }).stdout;
  const files: SchemaFile[] = [];
  let offset = 0;
  for (const path of paths) {
    const headerEnd = output.indexOf(0x0a, offset);
    const size = Number(output.subarray(offset, headerEnd).toString('utf8').split(' ')[2]);
    const body = output.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8');
    files.push({ file: path.replace(/^schemas\//, ''), schema: JSON.parse(body) as unknown });
    offset = headerEnd + 1 + size + 1;
  }
  return files;
}

describe('schema evolution (needs the git history of schemas/)', () => {
  const missing = missingHistory();
  const current = readSchemas();
  const commits =
    missing === undefined
      ? git(['log', '--format=%H', '--', join('schemas', 'aspects'), join('schemas', 'events')])
          .split('\n')
          .filter((line) => line !== '')
      : [];

  it('has the history to check against', () => {
    expect(missing).toBeUndefined();
    expect(commits.length).toBeGreaterThan(0);
  });

  it.each(trees)('keeps every earlier version of the %s schemas readable', (tree) => {
    const today = loadTypes(current[tree]);
    const problems: string[] = [];
    for (const commit of commits) {
      const then = loadTypes(filesAt(commit, tree));
      for (const [name, writer] of Object.entries(then)) {
        const reader = today[name];
        if (!reader) continue; // a type no longer used: nothing reads it any more
        try {
          reader.createResolver(writer);
        } catch (error) {
          problems.push(
            `${name} as of ${commit.slice(0, 8)}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
