import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { testEntityRegistry } from '@strata/model/testing';

import { createSearchSchema } from './search-schema';
import { SqliteSearchIndex } from './sqlite-search-index';
import { describeSearchIndexContract } from './testing';

const schema = createSearchSchema(testEntityRegistry());

describeSearchIndexContract('SqliteSearchIndex', {
  schema,
  create: () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-search-'));
    const path = join(directory, 'search.sqlite');
    return Promise.resolve({
      index: new SqliteSearchIndex({ path, schema }),
      reopen: () => Promise.resolve(new SqliteSearchIndex({ path, schema })),
      dispose: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
});
