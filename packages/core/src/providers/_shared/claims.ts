/**
 * Small readers for provider profiles. Imports no provider, so any provider may use it without
 * loading another's code.
 * @module
 */

/** The first argument that is a non-empty string (trimmed), else `null`. */
export function firstText(...values: unknown[]): string | null {
  for (const value of values) {
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return null;
}

/** `given` and `family` joined by a space, or `null` when both are missing. */
export function fullName(given: unknown, family: unknown): string | null {
  const parts = [firstText(given), firstText(family)].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(" ") : null;
}
