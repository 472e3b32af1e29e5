/** Exit codes of `dossier`, documented in `dossier --help` and the package README (one table, this one). */
export const EXIT = {
  /** Everything worked. */
  ok: 0,
  /** The command ran but failed: the server refused the request, a document ended in error, a check failed. */
  failure: 1,
  /** Usage error: unknown command or flag, missing argument, bad value, no collection chosen. */
  usage: 2,
  /** Not found (404): the collection, document, section or key does not exist for this API key. */
  notFound: 3,
  /** Server or network error: connection refused, DNS, TLS, timeout, or a 5xx answer. */
  server: 4,
  /** The API key was rejected (401) or lacks permission (403). */
  auth: 5,
  /** No API key: set SERVICE_API_KEY or pass --api-key (77 is EX_NOPERM of sysexits.h). */
  missingKey: 77,
  /** Interrupted by Ctrl-C (SIGINT), except `watch`, for which Ctrl-C is the normal way to stop. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit-code table as shown by `dossier --help` (the README repeats it; a test keeps them equal). */
export const EXIT_CODE_DOCS: readonly [ExitCode, string][] = [
  [EXIT.ok, 'success'],
  [EXIT.failure, 'failure: the server refused the request (400, 409, 413, 422, 429…), a document ended in error, a doctor check failed'],
  [EXIT.usage, 'usage error: unknown command or flag, missing or bad argument, no collection chosen'],
  [EXIT.notFound, 'not found (404): no such collection, document, section or key for this API key'],
  [EXIT.server, 'server or network error: connection refused, DNS, TLS, timeout, or a 5xx answer'],
  [EXIT.auth, 'the API key was rejected (401) or lacks permission (403)'],
  [EXIT.missingKey, 'no API key: set SERVICE_API_KEY or pass --api-key'],
  [EXIT.interrupted, 'interrupted by Ctrl-C (`watch` exits 0 on Ctrl-C: that is how it stops)'],
];
