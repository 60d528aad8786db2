/**
 * The console's size budget: what a browser downloads to show the home page — the page, its entry script and every
 * chunk that script imports statically, its styles, and the home page's own chunk with its static imports — must
 * stay within 400 KB gzipped. The rest (search, entity pages, the lineage graph, charts, the diff view) is code-split
 * into chunks loaded when first needed; the test also checks that the heaviest libraries stay out of the initial load.
 * It reads the built bundle (apps/console/dist, which `npm run build` makes).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const DIST = join(__dirname, '..', 'apps', 'console', 'dist');
const BUDGET_BYTES = 400 * 1024;

/** The chunks a module imports statically (`import … from "./x.js"`, `import "./x.js"`), as Vite writes them. */
function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:import|export)\s*(?:[^'"()]*?from\s*)?["']\.\/([^"']+\.js)["']/g)) {
    if (match[1] !== undefined) found.add(match[1]);
  }
  return [...found];
}

/** A chunk and everything it imports statically, transitively: file names under assets/. */
function closure(start: string, seen = new Set<string>()): Set<string> {
  if (seen.has(start)) return seen;
  seen.add(start);
  for (const next of staticImports(readFileSync(join(DIST, 'assets', start), 'utf8'))) closure(next, seen);
  return seen;
}

describe('the console bundle', () => {
  const index = join(DIST, 'index.html');

  it('is built', () => {
    expect(existsSync(index)).toBe(true);
  });

  it('loads the home page within 400 KB gzipped, with the heavy views split out', () => {
    const html = readFileSync(index, 'utf8');
    const entry = /<script type="module"[^>]*src="\/assets\/([^"]+\.js)"/.exec(html)?.[1];
    expect(entry).toBeDefined();
    const files = closure(entry ?? '');
    for (const preload of html.matchAll(/rel="modulepreload"[^>]*href="\/assets\/([^"]+)"/g)) {
      if (preload[1] !== undefined) closure(preload[1], files);
    }
    const home = /import\(["'`]\.\/(home-[^"'`]+\.js)["'`]\)/.exec(
      readFileSync(join(DIST, 'assets', entry ?? ''), 'utf8'),
    )?.[1];
    expect(home).toBeDefined();
    closure(home ?? '', files);
    const styles = [...html.matchAll(/rel="stylesheet"[^>]*href="\/assets\/([^"]+\.css)"/g)].map(
      (match) => match[1] ?? '',
    );
    const sizes = [...files, ...styles].map((file) => ({
      file,
      gzipped: gzipSync(readFileSync(join(DIST, 'assets', file))).length,
    }));
    const total = gzipSync(html).length + sizes.reduce((sum, { gzipped }) => sum + gzipped, 0);
    process.stdout.write(
      `console initial load: ${(total / 1024).toFixed(1)} KB gzipped in ${sizes.length + 1} files (budget ${BUDGET_BYTES / 1024} KB)\n`,
    );
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
    // The graph, chart, diff and Markdown libraries are loaded with the views that use them, not up front.
    const initialCode = [...files].map((file) => readFileSync(join(DIST, 'assets', file), 'utf8')).join('\n');
    expect(initialCode).not.toMatch(/react-flow__|recharts-|dagre/);
  });
});
