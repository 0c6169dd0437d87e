/**
 * Direct readers of the tables for `@gatehousejs/adapter-test`: plain `SELECT *` in SQL,
 * bypassing the adapter and Prisma's models, with the driver-dependent columns converted
 * (timestamps: SQLite stores epoch milliseconds; bigint; SQLite and MySQL booleans as 0/1).
 */
import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import type { Dialect } from "./generate.js";

type Row = Record<string, unknown>;
type Sql = (query: string, ...values: unknown[]) => Promise<Row[]>;

const DATES = new Set(["emailVerified", "expires", "createdAt", "lastSeenAt", "at", "resetAt"]);
const NUMBERS = new Set(["expires_at", "counter", "tries", "count"]);
const BOOLEANS = new Set(["credentialBackedUp", "newClient"]);

/** A moment as the dialect's driver returns it. */
export function storedDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  const s = String(value);
  // MySQL's DATETIME has no zone: the adapter stores UTC.
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(" ", "T")}Z`);
}

function converted(row: Row | undefined): Row | null {
  if (!row) return null;
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === null || value === undefined) out[key] = null;
    else if (DATES.has(key)) out[key] = storedDate(value);
    else if (NUMBERS.has(key)) out[key] = Number(value);
    else if (BOOLEANS.has(key)) out[key] = value === true || Number(value) === 1;
    else out[key] = value;
  }
  return out;
}

export function readers(
  dialect: Dialect,
  sql: Sql,
  table: (name: string) => string,
): AdapterTestDb {
  const q = (column: string) => (dialect === "mysql" ? `\`${column}\`` : `"${column}"`);
  const p = (n: number) => (dialect === "postgresql" ? `$${n}` : "?");
  const one = async (name: string, where: Record<string, unknown>) => {
    const keys = Object.keys(where);
    const condition = keys.map((k, i) => `${q(k)} = ${p(i + 1)}`).join(" AND ");
    const rows = await sql(
      `SELECT * FROM ${table(name)} WHERE ${condition}`,
      ...Object.values(where),
    );
    return converted(rows[0]);
  };
  return {
    user: async (id) => (await one("users", { id })) as AdapterUser | null,
    account: async ({ provider, providerAccountId }) =>
      (await one("accounts", { provider, providerAccountId })) as AdapterAccount | null,
    session: async (sessionToken) =>
      (await one("sessions", { sessionToken })) as AdapterSession | null,
    verificationToken: async ({ identifier, token }) =>
      (await one("verification_tokens", { identifier, token })) as VerificationToken | null,
    authenticator: async (credentialID) =>
      (await one("authenticators", { credentialID })) as AdapterAuthenticator | null,
  };
}
