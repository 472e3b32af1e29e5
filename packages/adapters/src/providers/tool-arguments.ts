import { DossierError } from '@dossier/core';

/**
 * Parse the JSON arguments a model wrote for a tool call (assembled from streamed fragments, or whole). Empty means
 * no arguments. Invalid JSON or a non-object is a retryable provider_error: the same call may well produce valid JSON.
 */
export function parseToolArguments(label: string, tool: string, json: string): Record<string, unknown> {
  if (!json.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new DossierError('provider_error', `${label} returned invalid JSON arguments for tool '${tool}'`, { cause: err, retryable: true });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DossierError('provider_error', `${label} returned arguments for tool '${tool}' that are not a JSON object`, { retryable: true });
  }
  return value as Record<string, unknown>;
}
