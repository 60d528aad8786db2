import { dirname, join } from 'node:path';
import { readConsoleAssets, type ConsoleAssets } from '@strata/http';

/** What {@link builtConsole} tells when there is no console to serve. */
interface ConsoleLogger {
  warn(message: string): void;
}

/**
 * The built Strata console (`npm run build` builds it into apps/console/dist), which the public front — the gateway,
 * alone or in the standalone process — serves at `/`; undefined, with a warning, where it has not been built.
 */
export function builtConsole(logger: ConsoleLogger): ConsoleAssets | undefined {
  let root: string;
  try {
    root = join(dirname(require.resolve('@strata/console/package.json')), 'dist');
  } catch {
    logger.warn('The console is not installed beside the gateway: only the API is served');
    return undefined;
  }
  const assets = readConsoleAssets(root);
  if (assets === undefined) logger.warn(`The console is not built (no ${root}/index.html): only the API is served`);
  return assets;
}
