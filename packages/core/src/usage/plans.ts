import { z } from 'zod';
import { DossierError } from '../domain/errors.ts';

/**
 * What a plan allows a project sandbox per calendar month (UTC) and at any time. null means unlimited.
 * The spec leaves plan quotas "not shown"; the operator names plans in a plans file and assigns them.
 */
export interface Plan {
  name: string;
  /** `POST /query` calls per month (429 beyond). */
  queries: number | null;
  /** Research credits per month (429 beyond). */
  credits: number | null;
  /** Megabytes of stored original files (402 beyond). */
  storageMb: number | null;
  /** Documents held (402 beyond). */
  documents: number | null;
  /** Live collections held (402 beyond). */
  collections: number | null;
  /** Agent runs of the org at once (429 beyond); read from the org's plan. */
  concurrentRuns: number | null;
}

export const UNLIMITED_PLAN: Readonly<Plan> = Object.freeze({
  name: 'unlimited',
  queries: null,
  credits: null,
  storageMb: null,
  documents: null,
  collections: null,
  concurrentRuns: null,
});

const limit = z.number().nonnegative().nullable().optional();
const planSchema = z.strictObject({
  queries: limit,
  credits: limit,
  storageMb: limit,
  documents: limit,
  collections: limit,
  concurrentRuns: limit,
});

/** The plans file: named plans, the default, and assignments of projects and orgs (by UUID) to plans. */
export const planFileSchema = z
  .strictObject({
    plans: z.record(z.string().min(1), planSchema),
    default: z.string().optional(),
    projects: z.record(z.string().uuid(), z.string()).optional(),
    orgs: z.record(z.string().uuid(), z.string()).optional(),
  })
  .superRefine((file, issue) => {
    const known = new Set(['unlimited', ...Object.keys(file.plans)]);
    const named = [file.default, ...Object.values(file.projects ?? {}), ...Object.values(file.orgs ?? {})];
    for (const name of named) if (name !== undefined && !known.has(name)) issue.addIssue({ code: 'custom', message: `unknown plan '${name}'` });
  });
export type PlanFile = z.input<typeof planFileSchema>;

/** Which plan a project or org is on. */
export interface PlanBook {
  /** The plan of a project (its meters and quotas). */
  ofProject(projectId: string): Plan;
  /** The plan of an org (its concurrency cap). */
  ofOrg(orgId: string): Plan;
}

/** Every project and org unlimited: the default when the operator configures no plans. */
export const unlimitedPlans: PlanBook = { ofProject: () => UNLIMITED_PLAN, ofOrg: () => UNLIMITED_PLAN };

/** A PlanBook from a parsed plans file; throws invalid_input naming what is wrong. */
export function planBook(raw: unknown): PlanBook {
  const parsed = planFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new DossierError('invalid_input', `Invalid plans file: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ')}`);
  const file = parsed.data;
  const byName = (name: string | undefined): Plan => {
    const plan = name === undefined || name === 'unlimited' ? undefined : file.plans[name];
    return plan ? { ...UNLIMITED_PLAN, ...plan, name: name as string } : UNLIMITED_PLAN;
  };
  return {
    ofProject: (projectId) => byName(file.projects?.[projectId] ?? file.default),
    ofOrg: (orgId) => byName(file.orgs?.[orgId] ?? file.default),
  };
}
