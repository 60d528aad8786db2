/**
 * The console's browser tests' kit: Debian's Chromium driven by playwright-core (no downloaded browser), a page per
 * test that records every script error and Content-Security-Policy violation, steps that save a screenshot each (and
 * the page's HTML and a screenshot when they fail) under test-results/console/, and axe-core's accessibility check.
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS, chromiumPath } from '@strata/testing';

/** Where the browser tests save screenshots and failing pages (ignored by git). */
export const ARTIFACTS_DIR = join(__dirname, '..', '..', 'test-results', 'console');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_FLAGS] });
}

/** A page and what went wrong on it: uncaught script errors, CSP violations, failed console messages. */
export interface WatchedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly problems: string[];
}

/** A fresh browser context (its own cookies) on `baseUrl`, with one page whose problems are recorded. */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  viewport = { width: 1366, height: 850 },
): Promise<WatchedPage> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport });
  // Well within a test's own time limit, so that a step that waits in vain fails in its test, not in the next one.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    const text = message.text();
    if (/Content[- ]Security[- ]Policy|Refused to (execute|load|apply|run)/i.test(text)) {
      problems.push(`CSP: ${text}`);
    }
  });
  return { context, page, problems };
}

/**
 * Runs one step of a browser test and saves a screenshot of where it ended (`<suite>/<name>.png`); when it fails,
 * saves the page's HTML beside a screenshot of the failure, then fails.
 */
export async function step(page: Page, suite: string, name: string, run: () => Promise<void>): Promise<void> {
  const dir = join(ARTIFACTS_DIR, suite);
  mkdirSync(dir, { recursive: true });
  const file = name.replace(/[^a-z0-9-]+/gi, '-').toLowerCase();
  try {
    await run();
  } catch (error) {
    await page.screenshot({ path: join(dir, `${file}.failed.png`), fullPage: true }).catch(() => undefined);
    const html = await page.content().catch(() => '(the page could not be read)');
    writeFileSync(join(dir, `${file}.failed.html`), html);
    throw error;
  }
  await page.screenshot({ path: join(dir, `${file}.png`), fullPage: true });
}

/** axe-core's serious and critical violations on the page as it is (WCAG 2.1 A and AA rules). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
}
