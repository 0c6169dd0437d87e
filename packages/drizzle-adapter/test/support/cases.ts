/**
 * Behaviour beyond the conformance suites, run on every database: one statement per session
 * check, single use and uniqueness under concurrency, the account lock, errors that keep their
 * driver code and never carry a parameter, and an older schema that keeps signing people in.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DrizzleAdapter, type DrizzleAdapterMethods } from "../../src/index.js";
import type { Harness } from "./databases.js";

const hex = () => randomBytes(12).toString("hex");
const DAY = 86_400_000;

/** The driver's code of a unique violation, on each dialect. */
const UNIQUE = /^(23505|ER_DUP_ENTRY|SQLITE_CONSTRAINT.*)$/;

export function storeCases(open: () => Harness): void {
  describe("beyond the contract", () => {
    let h: Harness;
    let adapter: DrizzleAdapterMethods;
    const count = async (table: string, column: string, value: unknown) => {
      const rows = await h.query(
        `SELECT count(*) AS n FROM ${h.quote(table)} WHERE ${h.quote(column)} = ?`,
        [value],
      );
      return Number(rows[0]?.n);
    };
    const newUser = (email = `dz-${hex()}@example.com`) =>
      adapter.createUser({ id: randomUUID(), email, emailVerified: null, name: "Pat" });
    const newAccount = (userId: string): AdapterAccount => ({
      userId,
      type: "oauth",
      provider: "race",
      providerAccountId: hex(),
      access_token: hex(),
      expires_at: 4_102_444_800,
      token_type: "bearer",
    });

    beforeAll(async () => {
      h = open();
      await h.setup();
      adapter = DrizzleAdapter(h.db);
    });
    afterAll(async () => {
      await h?.close();
    });

    test("getSessionAndUser is one SQL statement, found or not", async () => {
      const user = await newUser();
      const session = {
        sessionToken: hex(),
        userId: user.id,
        expires: new Date(Date.now() + DAY),
        createdAt: new Date(Date.now() - 1000),
        lastSeenAt: new Date(),
        provider: "github",
        providerType: "oauth",
        client: "Firefox 133 on Linux",
        ip: "203.0.113.0",
      };
      await adapter.createSession(session);
      const statements: string[] = [];
      const counted = DrizzleAdapter(
        h.withLogger({ logQuery: (query) => void statements.push(query) }),
      );
      expect(await counted.getSessionAndUser(session.sessionToken)).toEqual({
        session: { ...session, id: expect.any(String) },
        user,
      });
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/join/i);
      expect(await counted.getSessionAndUser(hex())).toBeNull();
      expect(statements).toHaveLength(2);
    });

    test("50 concurrent useVerificationToken calls for one token: exactly one gets it", async () => {
      const token = { identifier: `${hex()}@example.com`, token: hex(), expires: new Date() };
      await adapter.createVerificationToken(token);
      const key = { identifier: token.identifier, token: token.token };
      const results = await Promise.all(
        Array.from({ length: 50 }, () => adapter.useVerificationToken({ ...key })),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toEqual(token);
      expect(await count("verification_tokens", "identifier", token.identifier)).toBe(0);
    });

    test("30 concurrent tries of a code with max 5: the counts 1 to 5, each once", async () => {
      const token = { identifier: `${hex()}@example.com`, token: hex(), expires: new Date() };
      await adapter.createVerificationToken(token);
      const results = await Promise.all(
        Array.from({ length: 30 }, () =>
          adapter.countVerificationTokenTry(
            { identifier: token.identifier, token: token.token },
            5,
          ),
        ),
      );
      const counted = results.filter((r): r is number => r !== null).sort((a, b) => a - b);
      expect(counted).toEqual([1, 2, 3, 4, 5]);
    });

    test("createUser with one email twice at once: one user, the other call throws", async () => {
      const email = `dz-${hex()}@example.com`;
      const results = await Promise.allSettled([newUser(email), newUser(email)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(String(refused.reason.code)).toMatch(UNIQUE);
      expect(await count("users", "email", email)).toBe(1);
      // Users without an email are many.
      const bare = await Promise.all([newUser(""), newUser(""), newUser("")]);
      expect(new Set(bare.map((u) => u.id)).size).toBe(3);
      expect(await adapter.getUserByEmail("")).toBeNull();
    });

    test("20 concurrent linkAccount calls for one provider account leave one row", async () => {
      const user = await newUser();
      const account = newAccount(user.id);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => adapter.linkAccount({ ...account })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected") expect(String(r.reason.code)).toMatch(UNIQUE);
      }
      expect(await count("accounts", "providerAccountId", account.providerAccountId)).toBe(1);
      expect(await adapter.getUserByAccount(account)).toEqual(user);
    });

    test("a driver error keeps its code and never carries the statement's parameters", async () => {
      const user = await newUser();
      const account = newAccount(user.id);
      await adapter.linkAccount(account);
      const error = await adapter.linkAccount({ ...account }).catch((e: unknown) => e);
      expect(String((error as { code?: unknown }).code)).toMatch(UNIQUE);
      expect(String((error as Error).message)).not.toContain(account.access_token);
      expect(String((error as Error).message)).not.toMatch(/^Failed query/);
    });

    test("20 concurrent compare-and-swap updates over one refresh token: exactly one writes", async () => {
      const user = await newUser();
      const account = await adapter.linkAccount({ ...newAccount(user.id), refresh_token: "old" });
      const key = { provider: account.provider, providerAccountId: account.providerAccountId };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          adapter.updateAccount({ ...key, refresh_token: `new-${i}` }, { ifRefreshToken: "old" }),
        ),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      const stored = await adapter.getAccount(key.providerAccountId, key.provider);
      expect(stored?.refresh_token).toBe(winners[0]?.refresh_token);
      // An update that changes nothing still finds its account.
      expect(await adapter.updateAccount({ ...key, scope: stored?.scope ?? "s" })).not.toBeNull();
      expect(await adapter.updateAccount({ ...key, scope: stored?.scope ?? "s" })).not.toBeNull();
    });

    test("lockAccount: one holder at a time, released by its holder, expires by itself", async () => {
      const key = { provider: "race", providerAccountId: hex() };
      const other = { provider: "race", providerAccountId: hex() };
      const attempts = await Promise.all(
        Array.from({ length: 10 }, () => adapter.lockAccount(key, 60_000)),
      );
      const held = attempts.filter((r) => r !== null);
      expect(held).toHaveLength(1);
      const release2 = await adapter.lockAccount(other, 60_000);
      expect(release2).toBeTypeOf("function");
      await release2?.();
      await held[0]?.();
      const again = await adapter.lockAccount(key, 200);
      expect(again).toBeTypeOf("function");
      expect(await adapter.lockAccount(key, 200)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Expired: the next caller takes it, and the old holder's late release leaves it alone.
      const taken = await adapter.lockAccount(key, 60_000);
      expect(taken).toBeTypeOf("function");
      await again?.();
      expect(await adapter.lockAccount(key, 60_000)).toBeNull();
      await taken?.();
      expect(
        await count("account_locks", "key", JSON.stringify([key.provider, key.providerAccountId])),
      ).toBe(0);
      await expect(adapter.lockAccount(key, 0)).rejects.toThrow("positive ttlMs");
    });

    test("a WebAuthn counter past 2^31 comes back as a number", async () => {
      const user = await newUser();
      const credentialID = hex();
      await adapter.createAuthenticator({
        credentialID,
        userId: user.id,
        providerAccountId: credentialID,
        credentialPublicKey: hex(),
        counter: 0,
        credentialBackedUp: true,
        credentialDeviceType: "multiDevice",
        transports: null,
      });
      const updated = await adapter.updateAuthenticatorCounter(credentialID, 2 ** 32 + 5);
      expect(updated.counter).toBe(2 ** 32 + 5);
      expect((await adapter.getAuthenticator(credentialID))?.counter).toBe(2 ** 32 + 5);
      expect(updated.transports).toBeNull();
      expect(updated.credentialBackedUp).toBe(true);
      await expect(adapter.updateAuthenticatorCounter(hex(), 1)).rejects.toThrow(
        "no authenticator with this credential id",
      );
    });

    test("account JSON fields round-trip, absent ones stay absent", async () => {
      const user = await newUser();
      const full: AdapterAccount = {
        ...newAccount(user.id),
        type: "oidc",
        refresh_token: hex(),
        id_token: `${hex()}.${hex()}.${hex()}`,
        scope: "openid email",
        session_state: hex(),
        authorization_details: [{ type: "payment_initiation", amount: "10.00" }],
      };
      const withId = { id: expect.any(String) };
      expect(await adapter.linkAccount(full)).toEqual({ ...full, ...withId });
      expect(await adapter.getAccount(full.providerAccountId, full.provider)).toEqual({
        ...full,
        ...withId,
      });
    });
  });
}

/**
 * An older schema: the tables without the columns added since they first shipped. Sign-in and
 * the session check go on, each missing column is warned about once, and a password hash that
 * has nowhere to go is refused without showing it.
 */
export function olderSchemaCases(open: () => Harness): void {
  describe("an older schema (optional columns missing)", () => {
    let h: Harness;
    const warnings: string[] = [];
    let adapter: DrizzleAdapterMethods;

    beforeAll(async () => {
      h = open();
      await h.setup();
      const q = h.quote;
      for (const [table, column] of [
        ["accounts", "passwordHash"],
        ["accounts", "error"],
        ["sessions", "createdAt"],
        ["sessions", "lastSeenAt"],
        ["sessions", "factors"],
        ["verification_tokens", "tries"],
      ] as const) {
        await h.query(`ALTER TABLE ${q(table)} DROP COLUMN ${q(column)}`);
      }
      adapter = DrizzleAdapter(h.db, { logger: { warn: (m) => void warnings.push(m) } });
    });
    afterAll(async () => {
      await h?.close();
    });

    test("sign-in and session checks work; each missing column is warned about once", async () => {
      for (let round = 0; round < 3; round++) {
        const user = await adapter.createUser({
          id: randomUUID(),
          email: `old-${hex()}@example.com`,
          emailVerified: null,
        });
        const account = await adapter.linkAccount({
          userId: user.id,
          type: "oauth",
          provider: "github",
          providerAccountId: hex(),
          access_token: hex(),
        });
        expect(await adapter.getAccount(account.providerAccountId, "github")).toEqual(account);
        expect(await adapter.getUserByAccount(account)).toEqual(user);
        expect(await adapter.listAccountsByUserId(user.id)).toEqual([account]);
        const sessionToken = hex();
        const expires = new Date(Date.now() + DAY);
        const created = await adapter.createSession({
          sessionToken,
          userId: user.id,
          expires,
          createdAt: new Date(),
          lastSeenAt: new Date(),
          provider: "github",
        });
        expect(created).toEqual({
          id: expect.any(String),
          sessionToken,
          userId: user.id,
          expires,
          provider: "github",
        });
        const found = await adapter.getSessionAndUser(sessionToken);
        expect(found).toEqual({ session: created, user });
        expect(await adapter.updateSession({ sessionToken, lastSeenAt: new Date() })).toEqual(
          created,
        );
        expect(await adapter.listSessionsByUserId(user.id)).toEqual([created]);
        expect(
          await adapter.updateAccount({
            provider: "github",
            providerAccountId: account.providerAccountId,
            error: "RefreshTokenError",
          }),
        ).toEqual(account);
        expect(await adapter.deleteSession(sessionToken)).toEqual(created);
      }
      const named = (column: string) => warnings.filter((w) => w.includes(`"${column}"`));
      for (const column of ["passwordHash", "error", "createdAt", "lastSeenAt", "factors"]) {
        expect(named(column), `warnings about ${column}: ${warnings.join("\n")}`).toHaveLength(1);
      }
      expect(warnings.every((w) => w.includes("npx gatehouse migrate"))).toBe(true);
    });

    test("magic links work without the tries column; counting a code's try fails", async () => {
      const token = { identifier: `${hex()}@example.com`, token: hex(), expires: new Date() };
      expect(await adapter.createVerificationToken(token)).toEqual(token);
      await expect(adapter.countVerificationTokenTry(token, 5)).rejects.toThrow(/tries/);
      expect(await adapter.useVerificationToken(token)).toEqual(token);
      expect(await adapter.useVerificationToken(token)).toBeNull();
    });

    test("a password hash with no column to hold it is refused, without showing it", async () => {
      const user = await adapter.createUser({ id: randomUUID(), email: "", emailVerified: null });
      const passwordHash = `$argon2id$v=19$m=19456,t=2,p=1$${hex()}`;
      const error = await adapter
        .linkAccount({
          userId: user.id,
          type: "password" as never,
          provider: "password",
          providerAccountId: user.id,
          passwordHash,
        })
        .catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('"passwordHash"');
      expect((error as Error).message).not.toContain(passwordHash);
      expect(await adapter.getAccount(user.id, "password")).toBeNull();
    });
  });
}
