import { requireApiAccess } from '../http/auth.ts';
import { type RouteDef, type RouteDeps, send } from './define.ts';

/** The caller's usage meters (spec: Usage). */
export function usageRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    {
      method: 'get', path: '/v1/usage', tag: 'usage', auth: 'key',
      summary: "The key's sandbox usage this calendar month (UTC) with its plan's limits: {meters: {queries: {used, limit}, credits: {used, limit}, storage: {usedMb, limitMb}}}; a null limit is unlimited",
      responses: { 200: '{meters: {queries, credits, storage}}', 401: 'Missing or invalid API key' },
      handle: async (ctx) => send(ctx, 200, await dossier.usage.meters(requireApiAccess(ctx))),
    },
  ];
}
