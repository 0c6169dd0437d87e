/**
 * The verification-token methods: a token is redeemed once, and a sign-in code's try counted
 * once, however many requests race for it, on every dialect (no `UPDATE … RETURNING` needed).
 */
import type { VerificationToken } from "@gatehousejs/core/adapters";
import { type Db, model, TX_OPTIONS } from "./client.js";
import { toVerificationToken } from "./rows.js";

type TokenKey = Pick<VerificationToken, "identifier" | "token">;

/** The verification-token methods of {@link PrismaAdapter}. */
export interface PrismaVerificationTokenMethods {
  /**
   * Reads the token, then deletes it with a `deleteMany` whose count tells whether this call
   * deleted it: of concurrent calls for one token, only the one whose delete counted 1 gets it.
   */
  useVerificationToken(key: TokenKey): Promise<VerificationToken | null>;
  /**
   * A guarded increment (`tries < max`) and a read, in one transaction: the increment holds the
   * row's lock until the read, so each of concurrent calls gets a different count and at most
   * `max` get one.
   */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
}

export function verificationTokenMethods(db: Db): PrismaVerificationTokenMethods & {
  createVerificationToken(verificationToken: VerificationToken): Promise<VerificationToken>;
} {
  const tokens = model(db, "verificationToken");
  const unique = ({ identifier, token }: TokenKey) => ({ identifier_token: { identifier, token } });
  return {
    async createVerificationToken({ identifier, token, expires }) {
      const row = await tokens.create({ data: { identifier, token, expires } });
      return toVerificationToken(row);
    },
    async useVerificationToken({ identifier, token }) {
      const row = await tokens.findUnique({ where: unique({ identifier, token }) });
      if (!row) return null;
      const { count } = await tokens.deleteMany({ where: { identifier, token } });
      return count === 1 ? toVerificationToken(row) : null;
    },
    async countVerificationTokenTry({ identifier, token }, max) {
      return db.$transaction(async (tx) => {
        const rows = model(tx, "verificationToken");
        const { count } = await rows.updateMany({
          where: { identifier, token, tries: { lt: max } },
          data: { tries: { increment: 1 } },
        });
        if (count === 0) return null;
        const row = await rows.findUnique({
          where: unique({ identifier, token }),
          select: { tries: true },
        });
        return row ? Number(row.tries) : null;
      }, TX_OPTIONS);
    },
  };
}
