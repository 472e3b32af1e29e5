/** Lifetimes of the links and sign-on attempts of people on a team (issue 42). */
export interface PeopleSettings {
  /** How long an invitation link works. */
  invitationTtlSeconds: number;
  /** How long a reset link an admin issued works (passed on by hand, so longer than an e-mailed one). */
  adminResetTtlSeconds: number;
  /** How long a reset link a person asked for by e-mail works. */
  emailResetTtlSeconds: number;
}

export const DEFAULT_PEOPLE_SETTINGS: PeopleSettings = {
  invitationTtlSeconds: 7 * 24 * 3600,
  adminResetTtlSeconds: 24 * 3600,
  emailResetTtlSeconds: 3600,
};
