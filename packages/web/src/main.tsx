import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRootRoute, createRoute, createRouter, RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api.ts';
import type { CitationSearch } from './citation.tsx';
import { AdminPage } from './screens/admin.tsx';
import { AgentsPage } from './screens/agents.tsx';
import { ClaimMapPage } from './screens/claim-map.tsx';
import { CollectionSettingsPage } from './screens/collection-settings.tsx';
import { CollectionsPage } from './screens/collections.tsx';
import { DocumentPage } from './screens/document.tsx';
import { ContradictionsPage } from './screens/contradictions.tsx';
import { DocumentsPage } from './screens/documents.tsx';
import { DuplicatesPage } from './screens/duplicates.tsx';
import { EvaluationPage } from './screens/evaluation.tsx';
import { Layout } from './screens/layout.tsx';
import { ResearchPage } from './screens/research.tsx';
import { SearchPage } from './screens/search.tsx';
import { SessionProvider } from './session.tsx';
import './styles.css';

/** The dashboard's routes (issue 34): every screen is a URL, so reloads and links land where they pointed. */
const root = createRootRoute({ component: Layout });
const collections = createRoute({ getParentRoute: () => root, path: '/', component: CollectionsPage });
const documents = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId', component: DocumentsPage });
const settings = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId/settings', component: CollectionSettingsPage });
const search = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId/search', component: SearchPage });
const research = createRoute({
  getParentRoute: () => root,
  path: '/collections/$collectionId/research',
  component: ResearchPage,
  validateSearch: (s: Record<string, unknown>): { session?: string } => (typeof s.session === 'string' ? { session: s.session } : {}),
});
const document = createRoute({
  getParentRoute: () => root,
  path: '/documents/$documentId',
  component: DocumentPage,
  validateSearch: (s: Record<string, unknown>): { section?: string; highlight?: string } & CitationSearch => {
    const out: Record<string, string> = {};
    // The section to open, a passage to mark, and where a citation is (issue 39): strings, as a link carries them.
    for (const key of ['section', 'highlight', 'span', 'pages', 'regions', 'cells'] as const) if (typeof s[key] === 'string') out[key] = s[key];
    // A number in the URL (span=12-40 is a string, pages=2 is read as a number): kept as its text.
    for (const key of ['pages'] as const) if (typeof s[key] === 'number') out[key] = String(s[key]);
    return out;
  },
});

const duplicates = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId/duplicates', component: DuplicatesPage });
const contradictions = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId/contradictions', component: ContradictionsPage });
const agents = createRoute({ getParentRoute: () => root, path: '/agents', component: AgentsPage });
const claimMap = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId/claims', component: ClaimMapPage });
const evaluation = createRoute({ getParentRoute: () => root, path: '/collections/$collectionId/evaluation', component: EvaluationPage });
const admin = createRoute({ getParentRoute: () => root, path: '/admin', component: AdminPage });

const router = createRouter({
  routeTree: root.addChildren([collections, documents, settings, search, research, document, admin, duplicates, contradictions, agents, claimMap, evaluation]),
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2, refetchOnWindowFocus: false },
  },
});

const container = window.document.getElementById('root');
if (container) {
  createRoot(container).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <RouterProvider router={router} />
        </SessionProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
