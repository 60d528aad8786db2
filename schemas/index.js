'use strict';
// Reads the schema files beside this one. Composition roots call it once at start-up and hand the result to
// `createEntityRegistry` / `createEventSerde`, so that domain code never touches the file system.
const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

function readTree(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.avsc')) files.push({ file: relative(__dirname, path), schema: parse(path) });
    }
  };
  walk(root);
  return files;
}

function parse(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read schema ${relative(__dirname, path)}: ${error.message}`, { cause: error });
  }
}

function readSchemas() {
  return {
    entityRegistry: parse(join(__dirname, 'entity-registry.json')),
    aspects: readTree(join(__dirname, 'aspects')),
    events: readTree(join(__dirname, 'events')),
  };
}

module.exports = { readSchemas, schemasDirectory: __dirname };
