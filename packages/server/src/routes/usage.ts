import { responses } from '@dossier/core';
import { requireApiAccess } from '../http/auth.ts';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** The caller's usage meters (spec: Usage). */
export function usageRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    route({
      method: 'get', path: '/v1/usage', operationId: 'getUsage', tag: 'usage', auth: 'key',
      summary: "The key's sandbox usage this calendar month (UTC) with its plan's limits: {meters: {queries: {used, limit}, credits: {used, limit}, storage: {usedMb, limitMb}}}; a null limit is unlimited",
      responses: { 200: { description: 'The meters', schema: responses.usageMeters }, 401: 'Missing or invalid API key' },
      handle: async (ctx, { reply }) => reply(200, await dossier.usage.meters(requireApiAccess(ctx))),
    }),
  ];
}
