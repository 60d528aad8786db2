'use strict';
// Reads the schema files beside this one. Composition roots call it once at start-up and hand the result to
// `createEntityRegistry` / `createEventSerde`, so that domain code never touches the file system.
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

function readTree(root, base = __dirname) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.avsc')) files.push({ file: relative(base, path), schema: parse(path, base) });
    }
  };
  walk(root);
  return files;
}

function parse(path, base = __dirname) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read schema ${relative(base, path)}: ${error.message}`, { cause: error });
  }
}

// Strata's GraphQL schema (SDL), in the order its parts are read: operations, entities, types.
function readGraphqlSchema() {
  const directory = join(__dirname, 'graphql');
  return readdirSync(directory)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => ({ file: `graphql/${name}`, text: readFileSync(join(directory, name), 'utf8') }));
}

function readSchemas() {
  return {
    entityRegistry: parse(join(__dirname, 'entity-registry.json')),
    aspects: readTree(join(__dirname, 'aspects')),
    events: readTree(join(__dirname, 'events')),
  };
}

// An operator's own models (docs/custom-models.md): `.avsc` files anywhere under the directory, and optionally an
// `entity-registry.json` naming new entity types or aspects added to existing ones.
function readCustomModels(directory) {
  const registryPath = join(directory, 'entity-registry.json');
  let entityRegistry;
  if (existsSync(registryPath)) entityRegistry = parse(registryPath, directory);
  return { directory, entityRegistry, aspects: readTree(directory, directory) };
}

module.exports = { readSchemas, readGraphqlSchema, readCustomModels, schemasDirectory: __dirname };
