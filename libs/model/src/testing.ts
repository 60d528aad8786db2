/**
 * Test helpers for suites that need the real schemas. Behind the separate `@strata/model/testing` entry, so that
 * production code never reads schema files through the model library.
 */
// Test code may read the schema files; the model's own code never does (composition roots call readSchemas() and pass
// the result in).
import { readSchemas, type SchemaFiles } from '@strata/schemas';
import { createEntityRegistry, type EntityRegistry } from './entity-registry';

let files: SchemaFiles | undefined;
let registry: EntityRegistry | undefined;

/** The real schema files, `readSchemas()` of `@strata/schemas` (read once per test process). */
export function testSchemaFiles(): SchemaFiles {
  files ??= readSchemas();
  return files;
}

/** The entity registry built from the real `schemas/` (built once per test process, then memoized). */
export function testEntityRegistry(): EntityRegistry {
  registry ??= createEntityRegistry(testSchemaFiles());
  return registry;
}
