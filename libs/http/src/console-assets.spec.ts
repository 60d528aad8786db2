import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_CSP, readConsoleAssets } from './console-assets';
import { createHttpApp } from './create-http-app';
import { listen, type RunningServer } from './http-server';
import { defineRoute } from './route';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const PAGE = '<!doctype html><html><head><script type="module" src="/assets/index-abc.js"></script></head></html>';

describe('the console served by the public front', () => {
  let root: string;
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'strata-console-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), PAGE);
    writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1);');
    writeFileSync(join(root, 'favicon.svg'), '<svg/>');
    const assets = readConsoleAssets(root);
    if (assets === undefined) throw new Error('the console under test was not found');
    const app = createHttpApp({
      routes: [
        defineRoute({
          method: 'POST',
          resource: '/logIn',
          family: 'openapi',
          access: { kind: 'open' },
          summary: 'Log in.',
          handle: () => Promise.resolve({ body: { accessToken: 't' } }),
        }),
        defineRoute({
          method: 'GET',
          resource: '/config',
          family: 'restli',
          access: { kind: 'open' },
          summary: 'Config.',
          handle: () => Promise.resolve({ body: { ok: true } }),
        }),
      ],
      newId: () => 'id',
      anonymousActor: 'urn:li:corpuser:UNKNOWN',
      maxBodyBytes: 1024,
      logger: { error: () => undefined },
      isReady: () => true,
      documentation: { title: 'Test service', version: '1', description: 'Routes under test.' },
      console: assets,
    });
    server = await listen(app, '127.0.0.1', 0);
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server.close(0);
    rmSync(root, { recursive: true, force: true });
  });

  const get = (path: string, accept?: string) =>
    fetch(`${base}${path}`, { headers: accept === undefined ? {} : { Accept: accept } });

  it('answers a browser at / and at its own paths with its page, under a strict Content-Security-Policy', async () => {
    for (const path of [
      '/',
      '/search?query=x',
      '/browse/dataset',
      `/entity/${encodeURIComponent('urn:li:x:y')}/schema`,
      '/admin/audit',
      '/logIn',
    ]) {
      const response = await get(path, BROWSER);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(PAGE);
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
  });

  it('leaves API clients to the routes: JSON at /, the front door without Accept, routes and 404s as before', async () => {
    const json = await get('/', 'application/json');
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(((await json.json()) as { name: string }).name).toBe('Test service');
    expect(await (await get('/')).text()).not.toBe(PAGE);
    expect(await (await get('/config', BROWSER)).json()).toEqual({ ok: true });
    expect((await get('/nothing-here')).status).toBe(404);
    // A browser asking for an API path no route serves gets the API's 404, not the console.
    expect((await get('/api/nothing', BROWSER)).status).toBe(404);
    expect((await get('/openapi/nothing', BROWSER)).status).toBe(404);
    const logIn = await fetch(`${base}/logIn`, {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(await logIn.json()).toEqual({ accessToken: 't' });
  });

  it('serves the bundle: hashed assets immutable, a missing one a 404, other pages to the console', async () => {
    const script = await get('/assets/index-abc.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect((await get('/assets/missing.js', BROWSER)).status).toBe(404);
    expect((await get('/favicon.svg')).status).toBe(200);
    const index = await get('/index.html');
    expect(index.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    const unknown = await get('/some/page', BROWSER);
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toBe(PAGE);
  });

  it('is absent where the console was not built', () => {
    expect(readConsoleAssets(join(root, 'nowhere'))).toBeUndefined();
  });
});
