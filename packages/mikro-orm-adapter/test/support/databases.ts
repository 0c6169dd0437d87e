import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";

/** The PostgreSQL server of the tests (issue 6, "Real servers in tests"). */
export const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** The part of a MikroORM instance the readers use. */
interface Orm {
  em: {
    getConnection(): { execute(sql: string, params?: unknown[]): Promise<unknown> };
  };
}

/**
 * Why the database cannot be used, or `undefined` when `probe` succeeds within `timeoutMs`. In
 * CI (`CI=true`) an unreachable database throws instead, failing the test file.
 */
export async function unreachable(
  what: string,
  probe: () => Promise<unknown>,
  timeoutMs = 2000,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer in ${timeoutMs} ms`), timeoutMs);
  });
  const failure = probe().then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  const result = await Promise.race([failure, timeout]).finally(() => clearTimeout(timer));
  if (result === undefined) return undefined;
  const reason = `${what} is unreachable (${result})`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI=true, so this fails`);
  console.warn(`[mikro-orm-adapter] ${reason}: skipping its tests`);
  return reason;
}

type Raw = Record<string, unknown>;

// Raw driver values, normalized the way the adapter contract describes them: SQLite keeps
// dates as epoch milliseconds, booleans as 0/1 and JSON as text; pg returns bigint as a string.
const toDate = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string | number | Date);
const toNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/**
 * Readers for `runAdapterTests` that query the tables with plain SQL, bypassing the adapter and
 * MikroORM's entities, so the suite checks what the columns really hold.
 */
export function sqlReaders(orm: Orm, table: (name: string) => string): AdapterTestDb {
  const one = async (sql: string, params: unknown[]): Promise<Raw | null> => {
    const rows = (await orm.em.getConnection().execute(sql, params)) as Raw[];
    return rows[0] ?? null;
  };
  return {
    async user(id) {
      const row = await one(`select * from ${table("users")} where "id" = ?`, [id]);
      return row && ({ ...row, emailVerified: toDate(row["emailVerified"]) } as AdapterUser);
    },
    async account({ provider, providerAccountId }) {
      const row = await one(
        `select * from ${table("accounts")} where "provider" = ? and "providerAccountId" = ?`,
        [provider, providerAccountId],
      );
      return row && ({ ...row, expires_at: toNumber(row["expires_at"]) } as AdapterAccount);
    },
    async session(sessionToken) {
      const row = await one(`select * from ${table("sessions")} where "sessionToken" = ?`, [
        sessionToken,
      ]);
      return row && ({ ...row, expires: toDate(row["expires"]) } as AdapterSession);
    },
    async verificationToken({ identifier, token }) {
      const row = await one(
        `select * from ${table("verification_tokens")} where "identifier" = ? and "token" = ?`,
        [identifier, token],
      );
      return row && ({ ...row, expires: toDate(row["expires"]) } as VerificationToken);
    },
    async authenticator(credentialID) {
      const row = await one(`select * from ${table("authenticators")} where "credentialID" = ?`, [
        credentialID,
      ]);
      return (
        row &&
        ({
          ...row,
          counter: toNumber(row["counter"]),
          credentialBackedUp: Boolean(row["credentialBackedUp"]),
        } as AdapterAuthenticator)
      );
    },
  };
}
