const isoDate =
  /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Whether a value is a valid `Date`, or an ISO 8601 date string that parses into one. Adapters
 * use it to revive dates from JSON.
 *
 * @example
 * ```ts
 * isDate("2026-11-21T06:14:59.000Z") // true
 * isDate("next tuesday") // false
 * ```
 */
export function isDate(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  return typeof value === "string" && isoDate.test(value) && !Number.isNaN(Date.parse(value));
}
