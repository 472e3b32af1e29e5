import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, unwrap } from '../api.ts';
import { ErrorLine } from './common.tsx';

/** A document's claims (issue 37): importance, the claim, its source quote, and a link to its section. */
export function DocumentClaims({ documentId }: { documentId: string }) {
  const claims = useQuery({
    queryKey: ['document-claims', documentId],
    queryFn: async () => unwrap(await api.GET('/v1/documents/{id}/claims', { params: { path: { id: documentId } } })),
  });
  const list = claims.data?.claims ?? [];
  if (!claims.error && list.length === 0) return null;
  return (
    <details className="claims">
      <summary>Claims ({list.length})</summary>
      <ErrorLine error={claims.error} />
      <table className="grid">
        <caption className="visually-hidden">Claims of the document</caption>
        <thead>
          <tr>
            <th scope="col">Importance</th>
            <th scope="col">Claim</th>
            <th scope="col">Source quote</th>
            <th scope="col">Section</th>
          </tr>
        </thead>
        <tbody>
          {list.map((claim) => (
            <tr key={claim.id}>
              <td>{claim.importance}</td>
              <td>{claim.text}</td>
              <td>{claim.sourceText ? <q>{claim.sourceText}</q> : '—'}</td>
              <td>
                <Link
                  to="/documents/$documentId"
                  params={{ documentId }}
                  search={{ section: claim.sectionId, ...(claim.sourceText ? { highlight: claim.sourceText } : {}) }}
                >
                  {claim.sectionTitle}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
