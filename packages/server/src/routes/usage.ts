import { responses, schemas } from '@dossier/core';
import { type RouteDef, type RouteDeps, route } from './define.ts';

/** The caller's usage meters (spec: Usage). */
export function usageRoutes({ dossier }: RouteDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v1/usage',
      operationId: 'getUsage',
      tag: 'usage',
      auth: 'key',
      summary:
        "The key's sandbox usage this calendar month (UTC) with its plan's limits: {meters: {queries: {used, limit}, credits: {used, limit}, storage: {usedMb, limitMb}}}; a null limit is unlimited",
      responses: { 200: { description: 'The meters', schema: responses.usageMeters }, 401: 'Missing or invalid API key' },
      handle: async (_ctx, { caller, reply }) => reply(200, await dossier.usage.meters(caller)),
    }),
    route({
      method: 'get',
      path: '/v1/usage/daily',
      operationId: 'getUsageDaily',
      tag: 'usage',
      auth: 'key',
      query: schemas.usageDailyQuerySchema,
      summary:
        "The key's sandbox usage of a calendar month (UTC; `month` YYYY-MM, default the current one) day by day, for charts: each meter's every day (up to today for the current month) with what was used and the running total, against its plan limit; storage as held now",
      responses: {
        200: { description: 'The month day by day', schema: responses.usageDaily },
        400: 'Invalid month, or one not started yet',
        401: 'Missing or invalid API key',
      },
      handle: async (_ctx, { caller, query, reply }) => reply(200, await dossier.usage.daily(caller, query)),
    }),
  ];
}
