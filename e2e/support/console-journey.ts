/**
 * The console's journey in a real browser (Debian's Chromium), on one shared deployment with authentication on, as
 * the issue lists it: sign in, search with a facet, open a dataset and read its schema, walk its lineage two hops,
 * open its history and diff two versions, edit a description and a tag and see them in search, roll back a run after
 * its preview, read the audit trail as an administrator and be refused as a plain user, sign out (the session ends
 * server-side). Also: hostile Markdown and HTML from the catalog never runs, no page breaks the Content-Security-Policy,
 * and axe-core finds no serious or critical accessibility violation on any page visited. Each step saves a screenshot
 * (test-results/console/<deployment>/); a failing step saves the page.
 */
import { randomBytes } from 'node:crypto';
import { eventually, sharedDeployment, TestHttpClient, type SharedDeploymentName } from '@strata/testing';
import type { Browser, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, openPage, step, type WatchedPage } from './browser';
import { sampleCatalog, writeSampleCatalog } from './sample-catalog';

const entityPath = (urn: string, tab?: string) =>
  `/entity/${encodeURIComponent(urn)}${tab === undefined ? '' : `/${tab}`}`;

export function consoleJourney(name: SharedDeploymentName): void {
  describe(`the console on the ${name} deployment`, () => {
    // A step waits 10 s at most for what it expects (e2e/support/browser.ts); a test takes a few steps.
    jest.setTimeout(60_000);
    const tag = randomBytes(4).toString('hex');
    const sample = sampleCatalog(tag);
    const viewer = `viewer${tag}`;
    const viewerPassword = randomBytes(12).toString('base64url');
    let baseUrl: string;
    let rootPassword: string;
    let http: TestHttpClient;
    let root: Record<string, string>;
    let browser: Browser | undefined;
    let admin: WatchedPage;
    const accessibility = new Map<string, string[]>();

    /** Checks the page with axe-core, keeping what it finds under `label` (asserted at the end, all pages at once). */
    const checkAccessibility = async (page: Page, label: string) => {
      // As the page settles: not while a region is marked busy (dimmed while it fetches again).
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
      accessibility.set(label, await accessibilityViolations(page));
    };
    const run = (page: Page, label: string, body: () => Promise<void>) => step(page, name, label, body);

    beforeAll(async () => {
      const deployment = await sharedDeployment(name);
      baseUrl = deployment.baseUrl;
      rootPassword = deployment.rootPassword;
      http = new TestHttpClient(baseUrl);
      const login = await http.post('/logIn', { username: 'datahub', password: rootPassword });
      if (login.status !== 200) throw new Error(`root cannot log in: ${login.status} ${login.text}`);
      root = { Authorization: `Bearer ${(login.json as { accessToken: string }).accessToken}` };
      await writeSampleCatalog(http, sample.proposals, root);
      // A plain user, with a password: reads everything (the default policies), administers nothing.
      const userInfo = {
        proposal: {
          entityType: 'corpuser',
          entityUrn: `urn:li:corpuser:${viewer}`,
          changeType: 'UPSERT',
          aspectName: 'corpUserInfo',
          aspect: {
            value: JSON.stringify({ active: true, displayName: 'Vera Viewer' }),
            contentType: 'application/json',
          },
        },
      };
      expect((await http.post('/aspects?action=ingestProposal', userInfo, root)).status).toBe(200);
      const credentials = { userUrn: `urn:li:corpuser:${viewer}`, password: viewerPassword };
      expect((await http.post('/openapi/v1/users/credentials', credentials, root)).status).toBe(204);
      browser = await launchBrowser();
      admin = await openPage(browser, baseUrl);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
    });

    afterEach(() => {
      // No script error and no Content-Security-Policy violation on the administrator's page, whatever it showed.
      expect(admin.problems).toEqual([]);
    });

    it('sends a browser to the sign-in page, signs in, and keeps the session in an HttpOnly, SameSite=Strict cookie', async () => {
      const { page, context } = admin;
      await run(page, '01 sign-in page', async () => {
        await page.goto(entityPath(sample.urns.daily));
        await page.waitForURL(/\/logIn\?next=/);
        await page.getByLabel('User name').fill('datahub');
        await checkAccessibility(page, 'sign-in');
        await page.getByLabel('Password').fill(`${rootPassword}-wrong`);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').filter({ hasText: /wrong/i }).waitFor();
      });
      await run(page, '02 signed in', async () => {
        await page.getByLabel('Password').fill(rootPassword);
        await page.getByRole('button', { name: 'Sign in' }).click();
        // Back where it was going.
        await page.waitForURL((url) => url.pathname === entityPath(sample.urns.daily));
        await page.getByTestId('entity-name').waitFor();
        const cookies = await context.cookies();
        const session = cookies.find((cookie) => cookie.name === 'strata_session');
        expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
        expect(await page.evaluate('document.cookie')).not.toContain('strata_session');
      });
    });

    it('shows the home page with counts and the recently changed', async () => {
      const { page } = admin;
      await run(page, '03 home', async () => {
        await page.goto('/');
        await page.getByTestId('type-count').first().waitFor();
        await page.getByTestId('platform-count').first().waitFor();
        await checkAccessibility(page, 'home');
      });
    });

    it('is usable by keyboard: suggestions from the search box, and a visible focus ring', async () => {
      const { page } = admin;
      await run(page, '03b keyboard', async () => {
        await page.goto('/');
        const box = page.getByRole('combobox', { name: 'Search the catalog' });
        await box.waitFor();
        // The home page's search box has the focus: typing goes there.
        await page.keyboard.type('orders_dai');
        await page.getByRole('option').filter({ hasText: 'orders_daily' }).first().waitFor();
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');
        await page.getByTestId('entity-name').filter({ hasText: 'orders_daily' }).waitFor();
        // Tab moves through the page's controls, each drawn with a focus ring.
        await page.keyboard.press('Tab');
        const outline = await page.evaluate(
          'getComputedStyle(document.activeElement).outlineStyle + " " + getComputedStyle(document.activeElement).outlineWidth',
        );
        expect(outline).toMatch(/^solid [1-9]/);
      });
    });

    it('searches, narrows by a facet, and opens a dataset at its schema', async () => {
      const { page } = admin;
      await run(page, '04 search with a facet', async () => {
        await page.goto(`/search?query=${encodeURIComponent(`orders`)}`);
        await page.getByTestId('search-result').first().waitFor();
        const platform = page.getByTestId('facet-platform');
        await platform
          .getByLabel(/snowflake/i)
          .first()
          .check();
        await page.waitForURL(/snowflake/);
        await expectVisible(page.getByTestId('search-result').filter({ hasText: 'orders_daily' }).first());
        expect(await page.getByTestId('search-result').filter({ hasText: 'clickstream' }).count()).toBe(0);
        // The retired, soft-deleted dataset is hidden unless asked for.
        expect(await page.getByTestId('search-result').filter({ hasText: 'orders_2019' }).count()).toBe(0);
        await checkAccessibility(page, 'search');
      });
      await run(page, '05 dataset schema', async () => {
        await page
          .getByTestId('search-result')
          .filter({ hasText: 'orders_clean' })
          .first()
          .getByRole('link')
          .first()
          .click();
        await page.getByTestId('entity-name').filter({ hasText: 'orders_clean' }).waitFor();
        await page.getByRole('link', { name: 'Schema' }).click();
        await page.getByTestId('schema-field').filter({ hasText: 'amount_usd' }).waitFor();
        await expectVisible(page.getByTestId('schema-field').filter({ hasText: 'order_id' }).first());
        await checkAccessibility(page, 'entity schema');
      });
    });

    it('walks the lineage two hops upstream, with column-level edges', async () => {
      const { page } = admin;
      await run(page, '06 lineage two hops', async () => {
        await page.goto(entityPath(sample.urns.daily, 'lineage'));
        await page.getByTestId('lineage-node').filter({ hasText: 'orders_clean' }).first().waitFor();
        await page
          .getByRole('button', { name: /Expand upstream of orders_clean/i })
          .first()
          .click();
        await page.getByTestId('lineage-node').filter({ hasText: 'orders_raw' }).first().waitFor();
        await checkAccessibility(page, 'lineage');
      });
    });

    it('lists the versions of an aspect with who and which run wrote them, and diffs two', async () => {
      const { page } = admin;
      await run(page, '07 history diff', async () => {
        // Every aspect with its versions' count, last writer and run; then one aspect's versions, the one before the
        // latest diffed against the latest by default.
        await page.goto(entityPath(sample.urns.clean, 'history'));
        await expectVisible(page.getByRole('link', { name: 'datasetProperties' }));
        await page.goto(`${entityPath(sample.urns.clean, 'history')}?aspect=datasetProperties`);
        await page.getByTestId('aspect-version').first().waitFor();
        expect(await page.getByTestId('aspect-version').count()).toBe(2);
        await expectVisible(page.getByTestId('aspect-version').filter({ hasText: sample.runs.snowflake }));
        await expectVisible(page.getByTestId('aspect-version').filter({ hasText: sample.runs.snowflakeLater }));
        const diff = page.getByTestId('version-diff');
        await diff.waitFor();
        await expectVisible(diff.locator('.diff-added').filter({ hasText: 'currency conversion' }));
        await expectVisible(diff.locator('.diff-removed').filter({ hasText: 'de-duplication.' }));
        await checkAccessibility(page, 'history');
      });
    });

    it('edits a description and a tag, and search finds them at once', async () => {
      const { page } = admin;
      const word = `curated${tag}`;
      await run(page, '08 edit description and tag', async () => {
        await page.goto(entityPath(sample.urns.customers));
        await page.getByTestId('entity-name').waitFor();
        const description = page.getByTestId('description').first();
        await description.getByRole('button', { name: 'Edit description' }).click();
        await description.getByRole('textbox').fill(`One row per customer, ${word} by the console test.`);
        await description.getByRole('button', { name: 'Save' }).click();
        await expectVisible(description.getByText(word));
        await page.getByTestId('entity-header').getByRole('button', { name: 'Add tag', exact: true }).click();
        await page.getByLabel('Add tag').first().fill(`Gold${tag}`);
        await page.getByLabel('Add tag').first().press('Enter');
        await expectVisible(page.getByTestId('entity-header').getByRole('link', { name: 'Gold' }).first());
      });
      await run(page, '09 edits found by search', async () => {
        await eventually(async () => {
          await page.goto(`/search?query=${word}`);
          await page.getByTestId('search-result').filter({ hasText: 'customers' }).first().waitFor({ timeout: 3000 });
        });
        await page.goto(`/search?query=*&filter_tags=${encodeURIComponent(sample.urns.gold)}`);
        await page.getByTestId('search-result').filter({ hasText: 'customers' }).first().waitFor();
      });
    });

    it('rolls back a run after showing its dry run', async () => {
      const { page } = admin;
      await run(page, '10 rollback preview', async () => {
        await page.goto(`/admin/runs/${encodeURIComponent(sample.runs.legacy)}`);
        await page
          .getByRole('button', { name: /preview|dry run/i })
          .first()
          .click();
        const preview = page.getByTestId('rollback-preview');
        await preview.waitFor();
        await expectVisible(preview.getByText(/clickstream/).first());
        await checkAccessibility(page, 'rollback preview');
      });
      await run(page, '11 rolled back', async () => {
        await page.getByRole('button', { name: 'Roll back run' }).click();
        await page.getByTestId('rollback-result').waitFor();
        await eventually(async () => {
          const read = await http.get(`/entitiesV2/${encodeURIComponent(sample.urns.legacy(1))}`, root);
          expect(JSON.stringify(read.json)).not.toContain('Legacy clickstream partition 1.');
        });
      });
    });

    it('shows the audit trail to an administrator', async () => {
      const { page } = admin;
      await run(page, '12 audit trail', async () => {
        await page.goto('/admin/audit');
        await page.getByTestId('audit-row').first().waitFor();
        await checkAccessibility(page, 'audit');
      });
      for (const [label, path] of [
        ['operations', '/admin/operations'],
        ['tests', '/admin/tests'],
        ['tokens', '/admin/tokens'],
        ['runs', '/admin/runs'],
        ['browse', '/browse'],
      ] as const) {
        await run(page, `13 ${label}`, async () => {
          await page.goto(path);
          await page.getByRole('heading', { level: 1 }).waitFor();
          await page.waitForLoadState('networkidle');
          await checkAccessibility(page, label);
        });
      }
    });

    it('never runs scripts or handlers that the catalog holds', async () => {
      const { page } = admin;
      for (const tab of ['', 'schema', 'raw']) {
        await run(page, `14 hostile content ${tab || 'overview'}`, async () => {
          await page.goto(entityPath(sample.urns.hostile, tab || undefined));
          await page.getByTestId('entity-name').waitFor();
          await page.waitForLoadState('networkidle');
          // Hover and click what the content offered, as a curious reader would.
          for (const link of await page
            .locator('main a')
            .filter({ hasText: /a link|click/ })
            .all()) {
            await link.click({ trial: false, modifiers: [], timeout: 2000 }).catch(() => undefined);
          }
          expect(await page.evaluate('window.__strataPwned')).toBeUndefined();
          expect(
            await page.locator('main script, main iframe, main [onerror], main [onclick], main [onmouseover]').count(),
          ).toBe(0);
          expect(await page.locator('main a[href^="javascript:"]').count()).toBe(0);
        });
      }
    });

    it('refuses the audit trail to a plain user, who sees no edit controls', async () => {
      if (browser === undefined) throw new Error('no browser');
      const plain = await openPage(browser, baseUrl);
      try {
        await run(plain.page, '15 plain user refused', async () => {
          await plain.page.goto('/logIn');
          await plain.page.getByLabel('User name').fill(viewer);
          await plain.page.getByLabel('Password').fill(viewerPassword);
          await plain.page.getByRole('button', { name: 'Sign in' }).click();
          await plain.page.waitForURL((url) => url.pathname === '/');
          await plain.page.goto('/admin/audit');
          await plain.page
            .getByRole('alert')
            .filter({ hasText: /privilege|not allowed|refused/i })
            .first()
            .waitFor();
          expect(await plain.page.getByTestId('audit-row').count()).toBe(0);
        });
        await run(plain.page, '16 plain user entity page', async () => {
          await plain.page.goto(entityPath(sample.urns.daily));
          await plain.page.getByTestId('entity-name').waitFor();
          await plain.page.waitForLoadState('networkidle');
          expect(await plain.page.getByRole('button', { name: 'Edit description' }).count()).toBe(0);
          expect(await plain.page.getByLabel('Add tag').count()).toBe(0);
          expect(await plain.page.getByRole('button', { name: /^(Add tag|Add owner|Soft-delete)$/ }).count()).toBe(0);
        });
        expect(plain.problems).toEqual([]);
      } finally {
        await plain.context.close();
      }
    });

    it('ends the session server-side on sign-out', async () => {
      const { page, context } = admin;
      const cookie = (await context.cookies()).find((entry) => entry.name === 'strata_session')?.value;
      expect(cookie).toBeDefined();
      await run(page, '17 signed out', async () => {
        await page.goto('/');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(/\/logIn/);
      });
      // The cookie's token no longer works anywhere, even if someone kept it.
      await eventually(async () => {
        const after = await http.post(
          '/api/graphql',
          { query: '{ me { corpUser { urn } } }' },
          { Cookie: `strata_session=${cookie ?? ''}` },
        );
        expect(after.status).toBe(401);
      });
    });

    it('serves the session cookie to other clients too: DataHub CLI’s log-in-then-createAccessToken, never cross-site', async () => {
      const login = await http.post('/logIn', { username: 'datahub', password: rootPassword });
      expect(login.status).toBe(200);
      const setCookie = login.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/^strata_session=[^;]+; Path=\/; Max-Age=86400; HttpOnly; SameSite=Strict$/);
      const cookie = setCookie.split(';')[0] ?? '';
      const create = {
        query:
          'mutation createAccessToken($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken metadata { id } } }',
        variables: {
          input: { type: 'PERSONAL', actorUrn: 'urn:li:corpuser:datahub', duration: 'ONE_HOUR', name: `cli ${tag}` },
        },
      };
      // As DataHub's CLI sends it: the cookie, no Origin.
      const made = await http.post('/api/v2/graphql', create, { Cookie: cookie });
      expect(made.status).toBe(200);
      expect(made.json).toMatchObject({ data: { createAccessToken: { accessToken: expect.any(String) } } });
      // From another site's page: refused before anything runs.
      const forged = await http.post('/api/v2/graphql', create, {
        Cookie: cookie,
        Origin: 'https://elsewhere.example',
      });
      expect(forged.status).toBe(403);
      expect(forged.json).toMatchObject({
        errors: [{ message: expect.stringContaining('did not come from this site') }],
      });
      // Signing out ends that session too.
      expect((await http.post('/logOut', undefined, { Cookie: cookie })).status).toBe(204);
      await eventually(async () => {
        expect(
          (await http.post('/api/graphql', { query: '{ me { corpUser { urn } } }' }, { Cookie: cookie })).status,
        ).toBe(401);
      });
    });

    it('finds no serious or critical accessibility violation on any page visited', () => {
      expect(Object.fromEntries([...accessibility].filter(([, found]) => found.length > 0))).toEqual({});
      expect(accessibility.size).toBeGreaterThanOrEqual(10);
    });
  });
}

/** Playwright's web-first assertion, without @playwright/test: the locator becomes visible within the timeout. */
function expectVisible(locator: ReturnType<Page['locator']>) {
  return locator.first().waitFor({ state: 'visible', timeout: 10_000 });
}
