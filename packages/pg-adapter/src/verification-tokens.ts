/**
 * The verification-token methods: one statement each, so that a token is redeemed once, and a
 * sign-in code's try counted once, however many requests race for it.
 */
import type { VerificationToken } from "@gatehousejs/core/adapters";
import type { Row } from "./client.js";
import { toVerificationToken } from "./rows.js";

type TokenKey = Pick<VerificationToken, "identifier" | "token">;

const TOKEN = `"identifier", "token", "expires"`;

/** The verification-token methods of {@link PostgresAdapter}. */
export interface PostgresVerificationTokenMethods {
  /** One atomic `DELETE … RETURNING`: of concurrent calls for one token, one gets it. */
  useVerificationToken(key: TokenKey): Promise<VerificationToken | null>;
  /**
   * One `UPDATE … SET "tries" = "tries" + 1 … RETURNING` guarded by `"tries" < max`: concurrent
   * calls serialise on the row lock, so each gets a different count and at most `max` get one.
   */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
}

/** The methods over the quoted, schema-qualified table `tokens`. */
export function verificationTokenMethods(
  one: (sql: string, params: unknown[]) => Promise<Row | undefined>,
  tokens: string,
): PostgresVerificationTokenMethods & {
  createVerificationToken(verificationToken: VerificationToken): Promise<VerificationToken>;
} {
  return {
    async createVerificationToken({ identifier, token, expires }) {
      const row = await one(
        `INSERT INTO ${tokens} (${TOKEN}) VALUES ($1, $2, $3) RETURNING ${TOKEN}`,
        [identifier, token, expires],
      );
      if (!row) throw new Error("PostgresAdapter: INSERT into verification_tokens returned no row");
      return toVerificationToken(row);
    },
    async useVerificationToken({ identifier, token }) {
      // Concurrent deletes of one row serialise on its row lock; only the first returns it.
      const row = await one(
        `DELETE FROM ${tokens} WHERE "identifier" = $1 AND "token" = $2 RETURNING ${TOKEN}`,
        [identifier, token],
      );
      return row ? toVerificationToken(row) : null;
    },
    async countVerificationTokenTry({ identifier, token }, max) {
      // A waiting UPDATE re-reads the row once the lock is released, so the guard sees every
      // try counted before it.
      const row = await one(
        `UPDATE ${tokens} SET "tries" = "tries" + 1
WHERE "identifier" = $1 AND "token" = $2 AND "tries" < $3
RETURNING "tries"`,
        [identifier, token, max],
      );
      return row ? Number(row.tries) : null;
    },
  };
}
