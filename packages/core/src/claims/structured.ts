import type { ChatResult } from '../ports/model-provider.ts';

/**
 * The arguments of the structured-output tool call of a model answer. Models that cannot be forced to call a tool
 * (Ollama) may answer with the JSON object as text instead; that is accepted too. Null when neither is there.
 */
export function toolArguments(result: ChatResult, toolName: string): Record<string, unknown> | null {
  const call = result.toolCalls.find((candidate) => candidate.name === toolName);
  if (call) return call.arguments;
  const start = result.text.indexOf('{');
  const end = result.text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const parsed: unknown = JSON.parse(result.text.slice(start, end + 1));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The array under `key` of a tool's arguments ([] when absent or not an array). */
export const argumentList = (args: Record<string, unknown> | null, key: string): unknown[] => {
  const value = args?.[key];
  return Array.isArray(value) ? value : [];
};
