import { describe, expect, it } from 'vitest';
import { loadConfig, type SettingDoc, SETTINGS } from '../src/config.ts';

/**
 * A default the table describes rather than states ("(unset)", "<data-dir>/lancedb"), or a provider address whose
 * config value is null (the SDK's own default, which the table names).
 */
const described = (s: SettingDoc) => /[<(]/.test(s.default) || s.key === 'anthropicBaseUrl' || s.key === 'openaiBaseUrl';

describe('the settings table', () => {
  it('states the default each setting really has (the server once ran 8 pipeline jobs while the table said 32)', () => {
    const defaults = loadConfig([], {}) as unknown as Record<string, unknown>;
    const stated = SETTINGS.filter((s) => !described(s));
    expect(stated.length).toBeGreaterThan(30);
    for (const s of stated) {
      const given = loadConfig([], { [s.env]: s.default }) as unknown as Record<string, unknown>;
      expect(given[s.key], `${s.env}: the table says ${s.default}`).toEqual(defaults[s.key]);
    }
  });
});
