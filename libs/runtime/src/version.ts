import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Strata's version: the version of its packages, all released together (read from this package's manifest). */
export const STRATA_VERSION: string = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;
