import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { Provider as GraphqlProvider } from 'urql';
import { graphqlClient } from './api/graphql';
import { SessionProvider } from './api/session';
import { router } from './routes';
import { SignInGate } from './ui/sign-in-gate';
import './ui/theme.css';

const root = document.getElementById('root');
if (root === null) throw new Error('The page has no #root element');
createRoot(root).render(
  <StrictMode>
    <GraphqlProvider value={graphqlClient}>
      <SessionProvider>
        <SignInGate>
          <RouterProvider router={router} />
        </SignInGate>
      </SessionProvider>
    </GraphqlProvider>
  </StrictMode>,
);
