// The narrow entry point: the OCR converter loads optional packages through here inside conversion threads.
import { DossierError } from '@dossier/core/conversion';

/**
 * Packages only some installs need (model SDKs, OCR data, shared-state engines) are optional peer dependencies
 * of @dossier/adapters: a feature that uses one loads it here, on first use, and an install without it gets a
 * message that names the package and the feature instead of a bare module-resolution error.
 */

/** The package a specifier belongs to: `@scope/name` or `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Whether an import or require failed because `pkg` itself is not installed (not one of its own imports). */
export function isMissingPackage(err: unknown, pkg: string): boolean {
  const e = err as NodeJS.ErrnoException;
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'MODULE_NOT_FOUND') return false;
  return new RegExp(`['"]${pkg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/[^'"]*)?['"]`).test(e.message);
}

/** The error of a feature whose optional package is missing. */
export function missingPackage(pkg: string, feature: string): DossierError {
  return new DossierError('not_configured', `${feature} needs the optional package ${pkg}, which is not installed (npm install ${pkg})`);
}

/** Import an optional package for `feature`; a missing one is a not_configured error that says what to install. */
export async function importOptional<T>(specifier: string, feature: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (err) {
    const pkg = packageOf(specifier);
    if (isMissingPackage(err, pkg)) throw missingPackage(pkg, feature);
    throw err;
  }
}

/** Run a synchronous use of an optional package (a `require.resolve`), turning its absence into the same error. */
export function withOptional<T>(pkg: string, feature: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw isMissingPackage(err, pkg) ? missingPackage(pkg, feature) : err;
  }
}
