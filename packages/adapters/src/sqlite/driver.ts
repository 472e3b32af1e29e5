import { createRequire } from 'node:module';
import { isMissingPackage } from '../optional.ts';

/**
 * Where the better-sqlite3 build for this Node is installed. On Node 22 and later: better-sqlite3 13 (installed under
 * the alias `better-sqlite3-napi`), a Node-API build. better-sqlite3 12 subclasses `node::ObjectWrap`, whose destructor
 * on Node 24.19 and later asserts that an Environment is current, and a statement collected at another moment aborts
 * the process (`Assertion failed: (env) != nullptr`, seen in this repository's consumer test on 24.21; upstream:
 * nodejs/node#65446). On Node 20 better-sqlite3 13 crashes at once (it requires Node 22), so 20 keeps 12.
 */
export function sqliteDriverPath(): string {
  const require = createRequire(import.meta.url);
  if (Number(process.versions.node.split('.')[0]) >= NAPI_BUILD_FROM_NODE) {
    try {
      return require.resolve('better-sqlite3-napi');
    } catch (err) {
      if (!isMissingPackage(err, 'better-sqlite3-napi')) throw err;
    }
  }
  return require.resolve('better-sqlite3');
}

/** The better-sqlite3 module for this Node (see sqliteDriverPath). */
export function sqliteDriver<T>(): T {
  return createRequire(import.meta.url)(sqliteDriverPath()) as T;
}

/** A private in-memory database (':memory:', or '' for a temporary one): no file, no other connection. */
export const isInMemory = (filename: string): boolean => filename === ':memory:' || filename === '';

/** The first Node major that runs better-sqlite3 13 (its engines field: >= 22). */
const NAPI_BUILD_FROM_NODE = 22;
