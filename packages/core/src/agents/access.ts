/** Hosted agents decide who may act on a project with the management plane's roles (auth/roles.ts). */
export { type OrgRole as ProjectRole, requireProjectRole } from '../auth/roles.ts';
