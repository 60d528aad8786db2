import { createBrowserRouter, type RouteObject } from 'react-router';
import { Loading } from './ui/components';
import { Layout } from './ui/layout';
import { RouteError } from './pages/route-error';

/**
 * Every page of the console and its URL. Each page is its own chunk, loaded when first visited (`lazy`); the state of
 * a page (query, filters, tab, versions compared) is in its URL, so that every view is a link someone can paste.
 * A page module exports `Component`.
 */
export const routes: RouteObject[] = [
  {
    path: '/logIn',
    lazy: () => import('./pages/login'),
    errorElement: <RouteError />,
    hydrateFallbackElement: <Loading />,
  },
  {
    element: <Layout />,
    errorElement: <RouteError />,
    // Shown while the first page's chunk loads.
    hydrateFallbackElement: <Loading />,
    children: [
      { index: true, lazy: () => import('./pages/home') },
      { path: 'search', lazy: () => import('./pages/search') },
      { path: 'browse/*', lazy: () => import('./pages/browse') },
      { path: 'entity/:urn/:tab?', lazy: () => import('./pages/entity/entity-page') },
      { path: 'admin', lazy: () => import('./pages/admin/admin-index') },
      { path: 'admin/runs', lazy: () => import('./pages/admin/runs') },
      { path: 'admin/runs/:runId', lazy: () => import('./pages/admin/run') },
      { path: 'admin/audit', lazy: () => import('./pages/admin/audit') },
      { path: 'admin/operations', lazy: () => import('./pages/admin/operations') },
      { path: 'admin/tests', lazy: () => import('./pages/admin/tests') },
      { path: 'admin/tokens', lazy: () => import('./pages/admin/tokens') },
      { path: '*', lazy: () => import('./pages/not-found') },
    ],
  },
];

export const router = createBrowserRouter(routes);
