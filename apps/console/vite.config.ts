import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The console's build: one entry (`index.html`), every page and heavy view (lineage graph, charts, diff) in a chunk of
 * its own loaded when first shown. Assets are content-hashed under `/assets/`, which the gateway serves as immutable.
 * Nothing is fetched from another origin at run time.
 */
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // The initial load's budget is checked by e2e/console-bundle.e2e.spec.ts; this only quiets Vite's own warning.
    chunkSizeWarningLimit: 1200,
    modulePreload: { polyfill: false },
  },
  server: {
    // `npx vite` in apps/console: the console with hot reload, on a Strata running at 8080.
    proxy: Object.fromEntries(
      ['/api', '/openapi', '/logIn', '/logOut', '/entities', '/aspects', '/runs', '/relationships', '/config'].map(
        (path) => [path, 'http://127.0.0.1:8080'],
      ),
    ),
  },
});
