import { describe, expect, it } from 'vitest';
import { createLlmReranker, parseRanking } from '../../src/search/llm-reranker.ts';
import { ScriptedModel } from '../../src/testing/scripted-model.ts';

const candidates = ['alpha', 'beta', 'gamma', 'delta'].map((t, i) => ({ id: `c${i}`, text: `${t} passage` }));
const orderOf = (scores: number[]) =>
  scores
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s - a.s)
    .map((x) => candidates[x.i]!.id);

describe('listwise ranking parser', () => {
  it('reads a JSON array, arrows or prose, ignores out-of-range and repeated numbers, appends the unnamed', () => {
    expect(parseRanking('[3, 1, 2]', 4)).toEqual([2, 0, 1, 3]);
    expect(parseRanking('Ranking: 2 > 4 > 2 > 9 > 0', 4)).toEqual([1, 3, 0, 2]);
    expect(parseRanking('no numbers here', 4)).toBeNull();
  });
});

describe('LLM listwise reranker', () => {
  it('orders candidates as the model answers and sends every candidate, numbered, with the query', async () => {
    const model = new ScriptedModel([{ text: '[4, 2]' }]);
    const reranker = createLlmReranker({ provider: model, model: 'test-model' });
    const scores = await reranker.rerank('which passage?', candidates);
    expect(orderOf(scores)).toEqual(['c3', 'c1', 'c0', 'c2']);
    expect(reranker.name).toBe('llm:test-model');
    const prompt = JSON.stringify(model.calls[0]?.request.messages);
    expect(prompt).toContain('which passage?');
    expect(prompt).toContain('[4] delta passage');
  });

  it('keeps the input order when the answer is garbage or the call fails, and says why', async () => {
    const reasons: string[] = [];
    const model = new ScriptedModel([{ text: 'I cannot help with that.' }, { error: new Error('boom') }]);
    const reranker = createLlmReranker({ provider: model, model: 'm', onFallback: (r) => reasons.push(r) });
    expect(orderOf(await reranker.rerank('q', candidates))).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(orderOf(await reranker.rerank('q', candidates))).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(reasons).toEqual([expect.stringContaining('unparseable'), expect.stringContaining('boom')]);
  });

  it('shows the model only the window and keeps the rest below it in input order', async () => {
    const model = new ScriptedModel([{ text: '[2, 1]' }]);
    const scores = await createLlmReranker({ provider: model, model: 'm', window: 2 }).rerank('q', candidates);
    expect(orderOf(scores)).toEqual(['c1', 'c0', 'c2', 'c3']);
    expect(JSON.stringify(model.calls[0]?.request.messages)).not.toContain('gamma');
  });
});
