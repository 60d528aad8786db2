/**
 * `npm run import-models -- <datahub checkout>`: regenerates `schemas/aspects/` and `schemas/entity-registry.json`
 * from a checkout (or export) of DataHub's repository. Run by hand when the pinned model version moves; the build only
 * ever reads the committed output.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { format } from 'prettier';
import { importModel } from './model-import';
import { parsePdl, type PdlFile } from './pdl-parser';

/** Where DataHub keeps its models, relative to the repository root. */
const PDL_ROOTS = ['li-utils/src/main/pegasus', 'metadata-models/src/main/pegasus'];
const REGISTRY = 'metadata-models/src/main/resources/entity-registry.yml';

async function main(argv: readonly string[]): Promise<void> {
  const [checkout, ...rest] = argv;
  if (checkout === undefined || rest.length > 0) {
    process.stderr.write('usage: npm run import-models -- <path to a DataHub checkout>\n');
    process.exitCode = 2;
    return;
  }
  const schemas = resolve(__dirname, '..', '..', '..', 'schemas');
  const files: PdlFile[] = [];
  for (const root of PDL_ROOTS) {
    const directory = join(checkout, root);
    for (const path of readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort()) {
      if (path.endsWith('.pdl')) files.push(parsePdl(readFileSync(join(directory, path), 'utf8'), join(root, path)));
    }
  }
  const model = importModel(files, readFileSync(join(checkout, REGISTRY), 'utf8'));

  const aspects = join(schemas, 'aspects');
  rmSync(aspects, { recursive: true, force: true });
  for (const [path, schema] of model.aspectFiles) {
    const target = join(aspects, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, await json(schema));
  }
  writeFileSync(join(schemas, 'entity-registry.json'), await json(model.entityRegistry));
  process.stdout.write(
    `model-import: ${model.entityRegistry.entities.length} entities, ${model.aspectFiles.size} schema files\n`,
  );
}

async function json(value: unknown): Promise<string> {
  return format(JSON.stringify(value), { parser: 'json', printWidth: 120 });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`model-import: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
