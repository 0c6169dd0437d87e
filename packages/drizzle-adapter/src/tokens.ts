/**
 * Verification tokens and WebAuthn authenticators. A token is redeemed once, and a sign-in
 * code's try counted once, however many requests race for it, on every dialect.
 */
import type { AdapterAuthenticator, VerificationToken } from "@gatehousejs/core/adapters";
import { and, asc, eq, lt, sql } from "drizzle-orm";
import type { Context } from "./context.js";
import { insertOf, retryDeadlocks } from "./dialect.js";
import {
  AUTHENTICATOR_FIELDS,
  TOKEN_FIELDS,
  toAuthenticator,
  toVerificationToken,
} from "./rows.js";
import { column, fieldsOf } from "./tables.js";

type TokenKey = Pick<VerificationToken, "identifier" | "token">;

export function tokenMethods(ctx: Context) {
  const { t, db } = ctx;
  const v = {
    identifier: column(t.verificationTokens, "identifier"),
    token: column(t.verificationTokens, "token"),
    tries: column(t.verificationTokens, "tries"),
  };
  const tokenFields = fieldsOf(t.verificationTokens, TOKEN_FIELDS);
  const byKey = ({ identifier, token }: TokenKey) =>
    and(eq(v.identifier, identifier), eq(v.token, token));
  const au = {
    credentialID: column(t.authenticators, "credentialID"),
    userId: column(t.authenticators, "userId"),
  };
  const authenticatorFields = fieldsOf(t.authenticators, AUTHENTICATOR_FIELDS);
  const byCredential = (credentialID: string) => eq(au.credentialID, credentialID);

  return {
    async createVerificationToken({ identifier, token, expires }: VerificationToken) {
      await ctx.run(insertOf(t.verificationTokens, { identifier, token, expires }));
      return { identifier, token, expires };
    },
    async useVerificationToken(key: TokenKey): Promise<VerificationToken | null> {
      // One DELETE … RETURNING (PostgreSQL, SQLite), or on MySQL the one DELETE that removed
      // the row: concurrent callers wait on its lock, then delete nothing.
      const row = await ctx.deleted(t.verificationTokens, tokenFields, byKey(key));
      return row ? toVerificationToken(row) : null;
    },
    async countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null> {
      if (ctx.returning) {
        // The guard is re-read once the row lock is free, so it sees every try counted before.
        const rows = await db
          .update(t.verificationTokens)
          .set({ tries: sql`${v.tries} + 1` })
          .where(and(byKey(key), lt(v.tries, max)))
          .returning({ tries: v.tries });
        return rows[0] ? Number(rows[0].tries) : null;
      }
      // MySQL: read and count under the row's lock, in one transaction.
      return retryDeadlocks(() =>
        db.transaction(async (tx) => {
          const rows = await tx
            .select({ tries: v.tries })
            .from(t.verificationTokens)
            .where(byKey(key))
            .for("update");
          const tries = rows[0] ? Number(rows[0].tries) : null;
          if (tries === null || tries >= max) return null;
          await tx
            .update(t.verificationTokens)
            .set({ tries: tries + 1 })
            .where(byKey(key));
          return tries + 1;
        }),
      );
    },

    async createAuthenticator(authenticator: AdapterAuthenticator) {
      const stored = { ...authenticator, transports: authenticator.transports ?? null };
      const values = Object.fromEntries(AUTHENTICATOR_FIELDS.map((f) => [f, stored[f]]));
      await ctx.run(insertOf(t.authenticators, values));
      return toAuthenticator(values);
    },
    async getAuthenticator(credentialID: string) {
      const row = await ctx.first(
        t.authenticators,
        authenticatorFields,
        byCredential(credentialID),
      );
      return row ? toAuthenticator(row) : null;
    },
    async listAuthenticatorsByUserId(userId: string) {
      const rows = await db
        .select(authenticatorFields)
        .from(t.authenticators)
        .where(eq(au.userId, userId))
        .orderBy(asc(au.credentialID));
      return rows.map(toAuthenticator);
    },
    async updateAuthenticatorCounter(credentialID: string, newCounter: number) {
      const where = byCredential(credentialID);
      const row = await ctx.updated(
        t.authenticators,
        authenticatorFields,
        { counter: newCounter },
        where,
        where,
      );
      if (!row) throw new Error("DrizzleAdapter: no authenticator with this credential id");
      return toAuthenticator(row);
    },
    async deleteAuthenticator(credentialID: string) {
      const row = await ctx.deleted(
        t.authenticators,
        authenticatorFields,
        byCredential(credentialID),
      );
      return row ? toAuthenticator(row) : null;
    },
  };
}
