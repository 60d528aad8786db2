/**
 * How the console's browser tests and benchmark start Chromium: Debian's (`apt-get install chromium`; CHROMIUM_PATH
 * to use another), headless, and without the background connections (updates, sync, field trials) that fail on a
 * closed network. Given to playwright-core's `chromium.launch({ executablePath, args })`; no browser is downloaded.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Where Chromium is. */
export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
}
