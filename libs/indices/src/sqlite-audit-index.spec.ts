import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describeAuditIndexContract } from './audit-index-contract';
import { SqliteAuditIndex } from './sqlite-audit-index';

describeAuditIndexContract('SqliteAuditIndex', {
  create: () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-audit-'));
    const path = join(directory, 'audit.sqlite');
    return Promise.resolve({
      index: new SqliteAuditIndex({ path }),
      reopen: () => Promise.resolve(new SqliteAuditIndex({ path })),
      dispose: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
});
