import { retryDelayMs } from '../jobs/runner.ts';

/** Retries after the first attempt (spec: up to 10), so at most 11 attempts per delivery (or manual retry). */
export const WEBHOOK_MAX_RETRIES = 10;

/** When retries are due: base·2^(n−1) after the n-th failed attempt, capped, with equal jitter (½–1× the delay). */
export interface WebhookSchedule {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** 10 s, 20 s, 40 s … 85 min: the 10 retries span about 2.8 hours before jitter. */
export const DEFAULT_WEBHOOK_SCHEDULE: WebhookSchedule = { baseDelayMs: 10_000, maxDelayMs: 2 * 60 * 60_000 };

/** Delay before the retry that follows failed attempt number `attempt` (1-based), or null when retries are spent. */
export function nextRetryDelayMs(attempt: number, schedule: WebhookSchedule, random = Math.random): number | null {
  if (attempt > WEBHOOK_MAX_RETRIES) return null;
  return retryDelayMs(attempt, { baseMs: schedule.baseDelayMs, maxMs: schedule.maxDelayMs }, random);
}
