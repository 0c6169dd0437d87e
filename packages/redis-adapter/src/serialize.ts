/**
 * Rows are stored as JSON. Dates become ISO 8601 strings (`Date#toJSON`) and come back as Dates;
 * numbers such as an account's `expires_at` stay numbers.
 */
import { isDate } from "@gatehousejs/core/adapters";

// The contract's date fields: revived from any ISO 8601 string.
const DATE_FIELDS = new Set(["emailVerified", "expires", "createdAt", "lastSeenAt"]);
// Extra fields a user added to a row: revived only from the exact shape `Date#toJSON` writes, so
// that an ordinary string is very unlikely to be mistaken for a date.
const TO_JSON_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Serialises a row. */
export function encode(row: object): string {
  return JSON.stringify(row);
}

/** Parses a stored row and revives its top-level dates. */
export function decode<T>(text: string): T {
  const row: unknown = JSON.parse(text);
  if (typeof row !== "object" || row === null || Array.isArray(row)) {
    throw new Error("RedisAdapter: a stored row is not a JSON object");
  }
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(row)) {
    const revive =
      typeof value === "string" &&
      (DATE_FIELDS.has(field) || TO_JSON_SHAPE.test(value)) &&
      isDate(value);
    out[field] = revive ? new Date(value) : value;
  }
  return out as T;
}

/** `decode`, or `null` for an absent row. */
export function decodeOrNull<T>(text: string | null): T | null {
  return text === null ? null : decode<T>(text);
}

/** Milliseconds since the epoch of a row's `expires`; throws when it is not a valid date. */
export function expiryOf(expires: unknown, what: string): number {
  const ms = expires instanceof Date ? expires.getTime() : Number.NaN;
  if (!Number.isFinite(ms))
    throw new Error(`RedisAdapter: ${what} needs \`expires\` as a valid Date`);
  return ms;
}
