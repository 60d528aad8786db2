import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { prefersJson } from './home-page';

/**
 * The Strata console (apps/console), as the public front serves it: its page at `/` and at every path of its own
 * (`/search`, `/entity/…`, `/logIn`…) for a browser, its content-hashed scripts and styles under `/assets/`, and a
 * strict Content-Security-Policy on the page. The console is a built bundle read from disk at start; a process without
 * one serves the API alone.
 */
export interface ConsoleAssets {
  /** The directory holding the built console (`index.html`, `assets/`). */
  readonly root: string;
}

/** The console's page paths: answered with its page when a browser asks (before routes, which own none of them). */
export const CONSOLE_PAGE_PATHS: readonly RegExp[] = [
  /^\/$/,
  /^\/logIn$/,
  /^\/search$/,
  /^\/browse(\/.*)?$/,
  /^\/entity\/.+$/,
  /^\/admin(\/.*)?$/,
];

/**
 * The page's Content-Security-Policy: scripts, styles, images, fonts and calls from this origin only; no inline script,
 * no `eval`, no plugin, no framing, no `<base>` rewriting, forms posting here only. Whatever the catalog holds, nothing
 * in it can run on the page.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of the console's page: its policy, and no caching (a new build's page names new asset files). */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': CONSOLE_CSP,
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  Vary: 'Accept',
};

/** The built console under `root`, or undefined when it has not been built there. */
export function readConsoleAssets(root: string): ConsoleAssets | undefined {
  return existsSync(join(root, 'index.html')) ? { root } : undefined;
}

/** Whether a request is a browser asking for a page: a GET or HEAD that prefers HTML to JSON. */
export function wantsPage(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const accept = request.get('accept');
  return accept !== undefined && /text\/html/i.test(accept) && !prefersJson(accept);
}

/**
 * The console's two handlers: `pages`, mounted before the routes, answers a browser's request for one of the console's
 * paths with its page; `files`, mounted after them, serves the bundle's files (immutable: their names carry their
 * content's hash) and answers a browser's request for any other path no route took with the page too (the console
 * shows its own "not found").
 */
export function consoleHandlers(assets: ConsoleAssets): { pages: Router; files: Router } {
  const sendPage = (_request: Request, response: Response) => {
    response.status(200).set(PAGE_HEADERS).send(currentPage());
  };
  // Read again when a new build replaced it (its asset names change with every build), so that a server left running
  // while the console is rebuilt never serves a page naming assets that are gone.
  const file = join(assets.root, 'index.html');
  let cached = { modified: 0, text: '' };
  const currentPage = () => {
    const modified = statSync(file).mtimeMs;
    if (modified !== cached.modified) cached = { modified, text: readFileSync(file, 'utf8') };
    return cached.text;
  };
  const pages = express.Router();
  pages.use((request: Request, response: Response, next: NextFunction) => {
    if (wantsPage(request) && CONSOLE_PAGE_PATHS.some((path) => path.test(request.path))) {
      sendPage(request, response);
      return;
    }
    next();
  });
  const files = express.Router();
  files.use(
    '/assets',
    express.static(join(assets.root, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
    }),
  );
  files.use(
    express.static(assets.root, {
      index: false,
      maxAge: '1h',
      setHeaders: (response, path) => {
        if (path.endsWith('.html')) response.set(PAGE_HEADERS);
      },
    }),
  );
  files.use((request: Request, response: Response, next: NextFunction) => {
    const reserved = /^\/(api|openapi|internal|assets|restli)(\/|$)/.test(request.path);
    if (!reserved && wantsPage(request)) {
      sendPage(request, response);
      return;
    }
    next();
  });
  return { pages, files };
}
