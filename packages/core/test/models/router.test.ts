import { describe, expect, it } from 'vitest';
import { DEFAULT_MODELS, displayModelId, mergeDefaults, routeModel } from '../../src/models/router.ts';

describe('model routing by prefix', () => {
  it('routes claude- ids to Anthropic and gpt-, chatgpt-, o1, o3 and o4 ids to OpenAI, unchanged', () => {
    expect(routeModel('claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    for (const id of ['gpt-4.1', 'chatgpt-4o-latest', 'o1', 'o1-mini', 'o3-mini', 'o4-mini']) {
      expect(routeModel(id)).toEqual({ provider: 'openai', model: id });
    }
  });

  it('routes ollama:<name> to Ollama with the prefix removed, and shows it with the prefix again', () => {
    expect(routeModel('ollama:llama3.1:8b')).toEqual({ provider: 'ollama', model: 'llama3.1:8b' });
    expect(displayModelId('ollama', 'llama3.1:8b')).toBe('ollama:llama3.1:8b');
    expect(displayModelId('openai', 'gpt-4.1')).toBe('gpt-4.1');
  });

  it('routes operator-listed Ollama names written without the prefix', () => {
    expect(routeModel('qwen2.5', { ollamaModels: ['qwen2.5'] })).toEqual({ provider: 'ollama', model: 'qwen2.5' });
  });

  it('rejects an unknown prefix with invalid_input listing every accepted prefix', () => {
    for (const id of ['gemini-2.5-pro', 'o2', 'qwen2.5', '', 'ollama:']) {
      expect(() => routeModel(id), id).toThrow(expect.objectContaining({ name: 'DossierError', code: 'invalid_input' }));
    }
    expect(() => routeModel('gemini-2.5-pro')).toThrow(/'claude-', 'gpt-', 'o1', 'o3', 'o4', 'chatgpt-', 'ollama:'/);
  });

  it('merges operator defaults over the built-in tier defaults, provider by provider', () => {
    expect(DEFAULT_MODELS.anthropic).toEqual({ fast: 'claude-haiku-4-5', best: 'claude-sonnet-4-6' });
    const merged = mergeDefaults({ openai: { best: 'o3' }, ollama: { fast: 'llama3.1' } });
    expect(merged.openai).toEqual({ fast: 'gpt-4.1-mini', best: 'o3' });
    expect(merged.ollama).toEqual({ fast: 'llama3.1' });
    expect(merged.anthropic).toEqual(DEFAULT_MODELS.anthropic);
  });
});
