/**
 * Direct readers of the tables for `@gatehousejs/adapter-test`: plain `SELECT *`, bypassing the
 * adapter, with only the driver-dependent number columns converted (`pg` returns `bigint` as a
 * string).
 */
import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import type { Queryable } from "../../src/index.js";

type Row = Record<string, unknown>;

export function readers(client: Queryable, schema: string): AdapterTestDb {
  const table = (name: string) => `"${schema}"."${name}"`;
  const one = async (sql: string, params: unknown[]) =>
    ((await client.query(sql, params)).rows[0] as Row | undefined) ?? null;
  const num = (value: unknown) => (value === null ? null : Number(value));
  return {
    user: async (id) =>
      (await one(`SELECT * FROM ${table("users")} WHERE "id" = $1`, [id])) as AdapterUser | null,
    account: async ({ provider, providerAccountId }) => {
      const row = await one(
        `SELECT * FROM ${table("accounts")} WHERE "provider" = $1 AND "providerAccountId" = $2`,
        [provider, providerAccountId],
      );
      return row && ({ ...row, expires_at: num(row.expires_at) } as AdapterAccount);
    },
    session: async (sessionToken) =>
      (await one(`SELECT * FROM ${table("sessions")} WHERE "sessionToken" = $1`, [
        sessionToken,
      ])) as AdapterSession | null,
    verificationToken: async ({ identifier, token }) =>
      (await one(
        `SELECT * FROM ${table("verification_tokens")} WHERE "identifier" = $1 AND "token" = $2`,
        [identifier, token],
      )) as VerificationToken | null,
    authenticator: async (credentialID) => {
      const row = await one(`SELECT * FROM ${table("authenticators")} WHERE "credentialID" = $1`, [
        credentialID,
      ]);
      return row && ({ ...row, counter: num(row.counter) } as AdapterAuthenticator);
    },
  };
}
