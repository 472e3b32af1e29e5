import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

describe('retrieval settings in the server config', () => {
  it('defaults to no reranker, no query expansion and RRF k 60 with equal weights', () => {
    const c = loadConfig([], {});
    expect([c.reranker, c.queryExpansion, c.rrfK, c.lexicalWeight, c.vectorWeight]).toEqual(['none', 'rm3', 60, 1, 1]);
  });

  it('reads flags over the environment', () => {
    const c = loadConfig(['--rrf-k', '20', '--query-expansion=rm3'], { DOSSIER_RRF_K: '90', DOSSIER_VECTOR_WEIGHT: '0.5', DOSSIER_RERANKER: 'llm' });
    expect([c.rrfK, c.queryExpansion, c.vectorWeight, c.reranker]).toEqual([20, 'rm3', 0.5, 'llm']);
  });

  it('rejects bad values naming the flag and the variable', () => {
    expect(() => loadConfig([], { DOSSIER_RRF_K: '0' })).toThrow(/--rrf-k \/ DOSSIER_RRF_K/);
    expect(() => loadConfig([], { DOSSIER_LEXICAL_WEIGHT: 'heavy' })).toThrow(/DOSSIER_LEXICAL_WEIGHT/);
    expect(() => loadConfig(['--query-expansion', 'bo1'], {})).toThrow(/expected none or rm3/);
    expect(() => loadConfig([], { DOSSIER_RERANKER: 'colbert' })).toThrow(/--reranker \/ DOSSIER_RERANKER.*unknown reranker/);
  });
});
