/**
 * Vitest suites that check a database adapter against the Gatehouse adapter contract, and a
 * revocation store, a security-event store or a rate-limit store against theirs.
 * @module
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { accountListing } from "./cases/account-listing.js";
import { accountRefresh } from "./cases/account-refresh.js";
import { accounts } from "./cases/accounts.js";
import { authenticators } from "./cases/authenticators.js";
import { authjsShape } from "./cases/authjs-shape.js";
import { cascade } from "./cases/cascade.js";
import { codeTries } from "./cases/code-tries.js";
import { concurrency } from "./cases/concurrency.js";
import { dates } from "./cases/dates.js";
import { passwordAccounts } from "./cases/password-accounts.js";
import { sessionListing } from "./cases/session-listing.js";
import { sessions } from "./cases/sessions.js";
import { users } from "./cases/users.js";
import { verificationTokens } from "./cases/verification-tokens.js";
import {
  adapterMethods,
  type Case,
  createContext,
  type Group,
  missingAdvice,
  optionalMethods,
  skipReason,
} from "./context.js";
import type { AdapterMethod, AdapterTestOptions } from "./options.js";

export type { AdapterMethod, AdapterTestDb, AdapterTestOptions } from "./options.js";
export {
  type RateLimitStoreMethod,
  type RateLimitStoreTestOptions,
  rateLimitStoreTestNames,
  runRateLimitStoreTests,
} from "./rate-limit/index.js";
export {
  type RevocationStoreMethod,
  type RevocationStoreTestOptions,
  revocationStoreTestNames,
  runRevocationStoreTests,
} from "./revocation/index.js";
export {
  runSecurityEventStoreTests,
  type SecurityEventStoreMethod,
  type SecurityEventStoreTestOptions,
  securityEventStoreTestNames,
} from "./security-events/index.js";
export type { StoreTestOptions } from "./store-suite.js";

const methodsCase: Case = {
  name: "implements every method of the contract that is not skipped",
  uses: [],
  async run(ctx) {
    const unexpected = adapterMethods.filter(
      (m) => typeof ctx.raw[m] !== "function" && !ctx.skipped.has(m) && !optionalMethods.has(m),
    );
    expect(unexpected, unexpected.length ? missingAdvice(unexpected) : "").toEqual([]);
  },
};

const groups: readonly Group[] = [
  { title: "contract", cases: [methodsCase] },
  users,
  accounts,
  accountListing,
  accountRefresh,
  passwordAccounts,
  sessions,
  sessionListing,
  verificationTokens,
  authenticators,
  dates,
  cascade,
  concurrency,
  codeTries,
  authjsShape,
];

/** Every test name of the suite, as accepted by the `skip` option. */
export const adapterTestNames: readonly string[] = groups.flatMap((g) =>
  g.cases.map((c) => c.name),
);

/**
 * Registers vitest `describe`/`test` blocks that check `options.adapter` against every method of
 * the adapter contract: users, accounts (and, when the adapter has the optional
 * `listAccountsByUserId`, the listing of a user's accounts), password accounts (their
 * `passwordHash` stored, read back unaltered, updated and cleared), sessions, verification
 * tokens, WebAuthn authenticators (and, when the adapter has the optional `deleteAuthenticator`,
 * removing one), Date round-trips, `null` for absent rows, cascading deletes,
 * single use of verification tokens under concurrency, uniqueness of provider accounts, (when the
 * adapter has the optional `countVerificationTokenTry`) sign-in code tries counted atomically,
 * and answers equal to what was stored, with no `null` for an optional field never given, as
 * Auth.js's own adapter tests compare them. Each test creates its own rows with fresh random ids,
 * so the tests are independent and may run against a shared database. Call it at the top level
 * of a test file.
 *
 * @example
 * ```ts
 * import { runAdapterTests } from "@gatehousejs/adapter-test";
 * import { migrate, PostgresAdapter } from "@gatehousejs/pg-adapter";
 * import { Pool } from "pg";
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * const one = (sql: string, params: unknown[]) =>
 *   pool.query(sql, params).then((r) => r.rows[0] ?? null);
 *
 * runAdapterTests({
 *   name: "postgres",
 *   adapter: PostgresAdapter(pool),
 *   db: {
 *     connect: () => migrate(pool), // create the tables before the first test
 *     disconnect: () => pool.end(),
 *     user: (id) => one("select * from users where id = $1", [id]),
 *     session: (token) => one(`select * from sessions where "sessionToken" = $1`, [token]),
 *   },
 * });
 * ```
 */
export function runAdapterTests(options: AdapterTestOptions): void {
  const skip = new Set<string>(options.skip ?? []);
  const known = new Set<string>([...adapterMethods, ...adapterTestNames]);
  const unknown = [...skip].filter((entry) => !known.has(entry));
  if (unknown.length > 0) {
    throw new Error(
      `runAdapterTests: options.skip has entries that match no test and no adapter method: ${unknown
        .map((u) => JSON.stringify(u))
        .join(", ")}. Method names: ${adapterMethods.join(", ")}.`,
    );
  }
  const ctx = createContext(options);
  const title = `adapter contract: ${options.name ?? "adapter"}`;

  describe(title, () => {
    beforeAll(async () => {
      await options.db?.connect?.();
    });
    afterAll(async () => {
      await options.db?.disconnect?.();
    });

    for (const group of groups) {
      describe(group.title, () => {
        for (const c of group.cases) {
          const reason = skipReason(c, skip, options.adapter);
          if (reason) {
            console.info(`[adapter-test] ${title}: skipped "${c.name}": ${reason}`);
            // Skipped only because the adapter's author listed it in `skip`, or because it needs
            // an optional method the adapter lacks; the reason is printed above, so a skipped
            // case is visible in every run.
            test.skip(c.name, () => {});
            continue;
          }
          test(c.name, async () => {
            const missing = c.uses.filter((m: AdapterMethod) => !ctx.has(m));
            if (missing.length > 0) throw new Error(missingAdvice(missing));
            await c.run(ctx);
          });
        }
      });
    }
  });
}
