/**
 * Production or not, decided once the same way for every default that depends on it.
 */

/**
 * Whether this is a production build or process. `process.env.NODE_ENV` is written out in full
 * so that bundlers (Nitro, Vite) replace it with the build's mode: a built app is production
 * whatever its environment says when it runs. A runtime without `process` counts as production,
 * where the more careful default applies.
 */
export function isProduction(): boolean {
  try {
    return process.env.NODE_ENV === "production";
  } catch {
    return true;
  }
}
