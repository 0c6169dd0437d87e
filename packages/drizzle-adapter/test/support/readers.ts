/**
 * Direct readers of the tables for `@gatehousejs/adapter-test`: plain `SELECT *` through the
 * driver, bypassing the adapter and Drizzle, with the driver-dependent values converted (SQLite
 * keeps dates as epoch milliseconds, booleans as 0/1 and JSON as text; MariaDB's JSON is text;
 * pg returns bigint as a string).
 */
import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import type { Harness, Row } from "./databases.js";

const toDate = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string | number | Date);
const toNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const toJson = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

export function readers(h: Harness): AdapterTestDb {
  const q = h.quote;
  const one = async (table: string, where: string[], params: unknown[]): Promise<Row | null> => {
    const clause = where.map((c) => `${q(c)} = ?`).join(" AND ");
    const rows = await h.query(`SELECT * FROM ${q(table)} WHERE ${clause}`, params);
    return rows[0] ?? null;
  };
  return {
    async user(id) {
      const row = await one("users", ["id"], [id]);
      if (!row) return null;
      delete row["email_key"];
      return { ...row, emailVerified: toDate(row.emailVerified) } as AdapterUser;
    },
    async account({ provider, providerAccountId }) {
      const row = await one(
        "accounts",
        ["provider", "providerAccountId"],
        [provider, providerAccountId],
      );
      return (
        row &&
        ({
          ...row,
          expires_at: toNumber(row.expires_at),
          session_state: toJson(row.session_state),
          authorization_details: toJson(row.authorization_details),
        } as unknown as AdapterAccount)
      );
    },
    async session(sessionToken) {
      const row = await one("sessions", ["sessionToken"], [sessionToken]);
      return (
        row &&
        ({
          ...row,
          expires: toDate(row.expires),
          createdAt: toDate(row.createdAt),
          lastSeenAt: toDate(row.lastSeenAt),
        } as AdapterSession)
      );
    },
    async verificationToken({ identifier, token }) {
      const row = await one("verification_tokens", ["identifier", "token"], [identifier, token]);
      return row && ({ ...row, expires: toDate(row.expires) } as VerificationToken);
    },
    async authenticator(credentialID) {
      const row = await one("authenticators", ["credentialID"], [credentialID]);
      return (
        row &&
        ({
          ...row,
          counter: toNumber(row.counter),
          credentialBackedUp: Boolean(row.credentialBackedUp),
        } as AdapterAuthenticator)
      );
    },
  };
}
