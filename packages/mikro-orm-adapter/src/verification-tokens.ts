/**
 * The verification-token methods, on any SQL driver of MikroORM: only `findOne`, `insert`,
 * `nativeUpdate` and `nativeDelete`, whose affected-row counts decide every race.
 */
import type { VerificationToken as AdapterVerificationToken } from "@gatehousejs/core/adapters";
import type { EntityManager, EntityName } from "@mikro-orm/core";
import type { VerificationToken } from "./entities.js";
import { entityData, plainRow } from "./rows.js";

type TokenKey = Pick<AdapterVerificationToken, "identifier" | "token">;

/** The verification-token methods of {@link MikroOrmAdapter}. */
export interface MikroOrmVerificationTokenMethods {
  createVerificationToken(token: AdapterVerificationToken): Promise<AdapterVerificationToken>;
  /** Of concurrent calls for one token, exactly one gets it: the one whose delete removed it. */
  useVerificationToken(key: TokenKey): Promise<AdapterVerificationToken | null>;
  /**
   * A compare-and-set on the `tries` column: `UPDATE … SET tries = n + 1 WHERE … AND tries = n`,
   * read again and retried when another call counted first. Each call that gets a number got
   * its own; once `max` is reached every call returns `null` at its next read.
   */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
}

/** The methods over `Token`, each run through `run` (a fresh fork, errors made safe to log). */
export function verificationTokenMethods(
  run: <T>(method: string, work: (em: EntityManager) => Promise<T>) => Promise<T>,
  Token: EntityName<VerificationToken>,
): MikroOrmVerificationTokenMethods {
  // A row as the contract has it: `tries` is the adapter's own bookkeeping.
  const toRow = (em: EntityManager, managed: object) => {
    const { tries: _tries, ...row } = plainRow<AdapterVerificationToken & { tries?: unknown }>(
      em.getMetadata(Token),
      managed,
    );
    return row as AdapterVerificationToken;
  };
  return {
    createVerificationToken: (token) =>
      run("createVerificationToken", async (em) => {
        const data = entityData(em.getMetadata(Token), token);
        delete data["tries"];
        const created = em.create(Token, data as unknown as VerificationToken);
        await em.persist(created).flush();
        return toRow(em, created);
      }),
    useVerificationToken: ({ identifier, token }) =>
      run("useVerificationToken", async (em) => {
        const found = await em.findOne(Token, { identifier, token });
        if (!found) return null;
        // Concurrent callers may all have read the row; only the delete that removed it wins
        // (the others wait on the row lock, then delete nothing), on every SQL database.
        const deleted = await em.nativeDelete(Token, { identifier, token });
        return deleted === 1 ? toRow(em, found) : null;
      }),
    countVerificationTokenTry: ({ identifier, token }, max) =>
      run("countVerificationTokenTry", async (em) => {
        // Every failed compare-and-set means another call counted one try, and at most `max`
        // can: so this loops at most `max` + 1 times.
        for (let round = 0; round <= max; round++) {
          const found = await em.findOne(
            Token,
            { identifier, token },
            { fields: ["tries"], disableIdentityMap: true },
          );
          if (!found) return null;
          const tries = Number(found.tries ?? 0);
          if (tries >= max) return null;
          const changed = await em.nativeUpdate(
            Token,
            { identifier, token, tries },
            { tries: tries + 1 },
          );
          if (changed === 1) return tries + 1;
        }
        return null;
      }),
  };
}
