import type { IndexSearchOptions } from '@dossier/core';

/**
 * SQL fragments for LanceDB `where` predicates (DataFusion dialect). Every user value goes through
 * `literal`: DataFusion string literals are standard SQL, so doubling `'` is the whole escape (a backslash
 * is an ordinary character there; the conformance suite checks both).
 */
export const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** A list literal for array functions: `['a', 'b']`. */
export const listLiteral = (values: readonly string[]): string => `[${values.map(literal).join(', ')}]`;

/** A typed List<Utf8> value for `update`; an empty `[]` has no element type and fails to plan. */
export const listValue = (values: readonly string[]): string => `arrow_cast(make_array(${values.map(literal).join(', ')}), 'List(Utf8)')`;

export const inList = (column: string, values: readonly string[]): string => `${column} IN (${values.map(literal).join(', ')})`;

/**
 * The prefilter of a search: canonical rows only, plus tags ALL / anyTags ANY / metadata pairs ALL / document ids.
 * `array_has_all` / `array_has_any` run inside the scan, so a filtered query still fills its limit.
 * An empty list means "no constraint", as an absent one does.
 */
export function searchWhere(filter: IndexSearchOptions['filter']): string {
  const clauses = ['canonical = true'];
  if (filter?.tags?.length) clauses.push(`array_has_all(tags, ${listLiteral(filter.tags)})`);
  if (filter?.anyTags?.length) clauses.push(`array_has_any(tags, ${listLiteral(filter.anyTags)})`);
  if (filter?.metadataPairs?.length) clauses.push(`array_has_all(metadata_pairs, ${listLiteral(filter.metadataPairs)})`);
  if (filter?.documentIds?.length) clauses.push(inList('document_id', filter.documentIds));
  return clauses.join(' AND ');
}
