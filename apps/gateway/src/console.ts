import { join } from 'node:path';
import { readConsoleAssets, type ConsoleAssets } from '@strata/http';

/** What {@link builtConsole} tells when there is no console to serve. */
interface ConsoleLogger {
  warn(message: string): void;
}

/**
 * The built Strata console (`npm run build` builds it into apps/console/dist), which the public front — the gateway,
 * alone or in the standalone process — serves at `/`; undefined, with a warning, where it has not been built. It is
 * found beside the gateway's own folder (apps/gateway/dist or src → apps/console/dist), as in the repository and in the
 * image, which copies every app's dist.
 */
export function builtConsole(logger: ConsoleLogger): ConsoleAssets | undefined {
  const root = join(__dirname, '..', '..', 'console', 'dist');
  const assets = readConsoleAssets(root);
  if (assets === undefined) logger.warn(`The console is not built (no ${root}/index.html): only the API is served`);
  return assets;
}
