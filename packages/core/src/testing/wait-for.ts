/**
 * The one bounded wait of the test suites: tests wait on a condition, never a fixed time (STYLE.md, Tests).
 * A `check` that throws ends the wait with its error, so a caller can give up early (a child process died).
 */
export async function waitFor<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
