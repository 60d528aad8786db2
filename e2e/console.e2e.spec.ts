/**
 * The Strata console in a browser on the shared standalone process with authentication on (the journey is in
 * e2e/support/console-journey.ts), and on the standalone process with authentication off, where the console acts as
 * the anonymous user and says so.
 */
import { sharedDeployment } from '@strata/testing';
import { launchBrowser, openPage, step } from './support/browser';
import { consoleJourney } from './support/console-journey';

consoleJourney('standalone-auth');

describe('the console with authentication off', () => {
  it('acts as the anonymous user and says so', async () => {
    const { baseUrl } = await sharedDeployment('standalone');
    const browser = await launchBrowser();
    try {
      const { page, problems } = await openPage(browser, baseUrl, { width: 700, height: 900 });
      await step(page, 'standalone', 'anonymous narrow window', async () => {
        await page.goto('/');
        await page.getByText('Authentication is off').waitFor();
        await page.getByText('Anonymous', { exact: true }).waitFor();
      });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
