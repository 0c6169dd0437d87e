/**
 * The verification-token methods: a token is redeemed once, and a sign-in code's try counted
 * once, however many requests race for it, on every dialect (no `UPDATE … RETURNING` needed).
 */
import type { VerificationToken } from "@gatehousejs/core/adapters";
import { type Db, model, type PrismaDialect, quoter, TX_OPTIONS } from "./client.js";
import { toVerificationToken } from "./rows.js";
import { omitted, type Tolerance } from "./tolerance.js";

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
   * `max` get one. Without the `tries` column (an older schema) it throws, naming the column:
   * an uncounted try would let a code be guessed.
   */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
}

export function verificationTokenMethods(
  db: Db,
  tolerant: Tolerance,
  dialect: PrismaDialect,
  table: (name: string) => string,
): PrismaVerificationTokenMethods & {
  createVerificationToken(verificationToken: VerificationToken): Promise<VerificationToken>;
} {
  const tokens = model(db, "verificationToken");
  const unique = ({ identifier, token }: TokenKey) => ({ identifier_token: { identifier, token } });
  // Magic links never read `tries`: without the column they keep working.
  const onTokens = <T>(work: (missing: ReadonlySet<string>) => Promise<T>) =>
    tolerant.run("verificationToken", work);
  return {
    createVerificationToken({ identifier, token, expires }) {
      return onTokens(async (missing) => {
        if (missing.has("tries")) {
          await insertWithoutTries(identifier, token, expires);
          return { identifier, token, expires };
        }
        return toVerificationToken(
          await tokens.create({ data: { identifier, token, expires }, ...omitted(missing) }),
        );
      });
    },
    useVerificationToken({ identifier, token }) {
      return onTokens(async (missing) => {
        const row = await tokens.findUnique({
          where: unique({ identifier, token }),
          ...omitted(missing),
        });
        if (!row) return null;
        const { count } = await tokens.deleteMany({ where: { identifier, token } });
        return count === 1 ? toVerificationToken(row) : null;
      });
    },
    countVerificationTokenTry({ identifier, token }, max) {
      return onTokens(async (missing) => {
        if (missing.has("tries")) {
          throw tolerant.needs("verificationToken", "tries", "counting a sign-in code's tries");
        }
        return countTry(identifier, token, max);
      });
    },
  };

  /**
   * Prisma writes a field's default (`tries`: 0) into every INSERT, even when the data leaves it
   * out; without the column, the row is inserted in SQL with the columns the table has.
   */
  async function insertWithoutTries(identifier: string, token: string, expires: Date) {
    const q = quoter(dialect);
    const columns = ["identifier", "token", "expires"].map(q).join(", ");
    const into = `INSERT INTO ${table("verification_tokens")} (${columns})`;
    if (dialect === "postgresql") {
      await db.$executeRawUnsafe(
        `${into} VALUES ($1, $2, $3::timestamptz)`,
        identifier,
        token,
        expires.toISOString(),
      );
    } else if (dialect === "mysql") {
      // UTC datetime(3), whatever the connection's time zone.
      await db.$executeRawUnsafe(
        `${into} VALUES (?, ?, DATE_ADD('1970-01-01 00:00:00.000', INTERVAL ? MICROSECOND))`,
        identifier,
        token,
        expires.getTime() * 1000,
      );
    } else {
      // SQLite: epoch milliseconds.
      await db.$executeRawUnsafe(`${into} VALUES (?, ?, ?)`, identifier, token, expires.getTime());
    }
  }

  function countTry(identifier: string, token: string, max: number): Promise<number | null> {
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
  }
}
