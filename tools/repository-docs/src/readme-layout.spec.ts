/**
 * README.md's layout block — the fenced block that lists the repository's folders — is the map a newcomer reads
 * first, so it must match the folders that exist: every top-level folder, and every folder under apps/, libs/ and
 * tools/, is named there, and nothing is named there that does not exist.
 *
 * How the block is read: a line starting with `<folder>/` names a top-level folder; the lines after it that start with
 * a space continue it. On the lines of apps/, libs/ and tools/, the names of the folders inside are separated by
 * commas or semicolons, and anything in parentheses describes them. Folders Git ignores (node_modules, data, build
 * output) and hidden ones are no part of the layout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const repositoryRoot = join(__dirname, '..', '..', '..');

/** The top-level folders whose every subfolder the block must name. */
const listedInFull = ['apps', 'libs', 'tools'];

/** Folder names `.gitignore` ignores as a whole (`node_modules/`, `/data/`): generated, never part of the layout. */
function ignoredFolderNames(): Set<string> {
  const lines = readFileSync(join(repositoryRoot, '.gitignore'), 'utf8').split('\n');
  const names = lines
    .map((line) => /^\/?([A-Za-z0-9._-]+)\/$/.exec(line.trim())?.[1])
    .filter((name): name is string => name !== undefined);
  return new Set(names);
}

function foldersIn(directory: string): string[] {
  const ignored = ignoredFolderNames();
  return readdirSync(join(repositoryRoot, directory), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !ignored.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** The layout block: README's fenced block with a line for apps/ and one for libs/. */
function layoutBlock(readme: string): string | undefined {
  const blocks = [...readme.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
  return blocks.find((block) => /^apps\//m.test(block) && /^libs\//m.test(block));
}

/** Each top-level folder the block names, with the text that follows it (continuation lines included). */
function layoutEntries(block: string): Map<string, string> {
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    const folder = /^([A-Za-z0-9._-]+)\/(.*)$/.exec(line);
    if (folder !== null) {
      current = folder[1]!;
      entries.set(current, folder[2]!);
    } else if (current !== undefined && /^\s+\S/.test(line)) {
      entries.set(current, `${entries.get(current)!} ${line.trim()}`);
    } else {
      current = undefined;
    }
  }
  return entries;
}

/** The folder names in an entry's text: separated by commas or semicolons, descriptions in parentheses left out. */
function namesIn(text: string): string[] {
  let plain = text;
  while (/\([^()]*\)/.test(plain)) plain = plain.replace(/\([^()]*\)/g, '');
  return plain
    .split(/[,;]/)
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function compare(named: readonly string[], existing: readonly string[]) {
  return {
    existingButNotNamed: existing.filter((folder) => !named.includes(folder)),
    namedButMissing: named.filter((folder) => !existing.includes(folder)),
  };
}

describe("README.md's layout block", () => {
  const block = layoutBlock(readFileSync(join(repositoryRoot, 'README.md'), 'utf8'));
  const entries = layoutEntries(block ?? '');

  it('is there: a fenced block with a line for apps/ and one for libs/', () => {
    expect(block).toBeDefined();
  });

  it('names every top-level folder of the repository, and only folders that exist', () => {
    expect(compare([...entries.keys()], foldersIn('.'))).toEqual({ existingButNotNamed: [], namedButMissing: [] });
  });

  it.each(listedInFull)('names every folder under %s/, and only folders that exist', (directory) => {
    const named = namesIn(entries.get(directory) ?? '');
    expect(compare(named, foldersIn(directory))).toEqual({ existingButNotNamed: [], namedButMissing: [] });
  });
});
