import { concurrencyGateSuite, rateLimiterSuite } from '@dossier/core/testing';
import { memoryConcurrencyGate } from '@dossier/core';
import { connectRedis, memoryRateLimiters, redisConcurrencyGate, redisRateLimiters } from '../src/limits/index.ts';

/** The Redis on this machine; the suites use a prefix unique to this run, and every key they write expires. */
const REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `dossier-test:${process.pid}:${Date.now()}:`;

rateLimiterSuite('memory', async () => memoryRateLimiters());
concurrencyGateSuite('memory', async () => memoryConcurrencyGate());
rateLimiterSuite('redis', async () => redisRateLimiters(await connectRedis(REDIS_URL), prefix));
concurrencyGateSuite('redis', async () => redisConcurrencyGate(await connectRedis(REDIS_URL), prefix));
