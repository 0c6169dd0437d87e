/**
 * Behaviour beyond the conformance suite, run on every store (server and PGlite): single use
 * under concurrency, one statement per session check, uniqueness, database-made ids, numbers
 * past 2³¹ and thrown errors.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostgresAdapter, type PostgresAdapterMethods, type Queryable } from "../../src/index.js";

/** A migrated store: a client and the schema that holds the tables. */
export interface Store {
  client: Queryable;
  schema: string;
  close(): Promise<void>;
}

const hex = () => randomBytes(12).toString("hex");
const DAY = 86_400_000;

/** A client that records every statement it is given, to count queries. */
export function counting(client: Queryable): Queryable & { statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    query(text, params) {
      statements.push(text);
      return client.query(text, params);
    },
  };
}

export function storeCases(name: string, open: () => Promise<Store>): void {
  describe(`pg-adapter on ${name}`, () => {
    let store: Store;
    let adapter: PostgresAdapterMethods;
    const count = async (table: string, where = "TRUE", params: unknown[] = []) => {
      const { rows } = await store.client.query(
        `SELECT count(*)::int AS n FROM "${store.schema}"."${table}" WHERE ${where}`,
        params,
      );
      return (rows[0] as { n: number }).n;
    };
    const newUser = (email = `pg-${hex()}@example.com`) =>
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
      store = await open();
      adapter = PostgresAdapter(store.client, { schema: store.schema });
    });
    afterAll(async () => {
      await store?.close();
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
      expect(await count("verification_tokens", `"identifier" = $1`, [token.identifier])).toBe(0);
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
      const client = counting(store.client);
      const counted = PostgresAdapter(client, { schema: store.schema });
      expect(await counted.getSessionAndUser(session.sessionToken)).toEqual({
        session: { ...session, id: expect.any(String) },
        user,
      });
      expect(client.statements).toHaveLength(1);
      expect(await counted.getSessionAndUser(hex())).toBeNull();
      expect(client.statements).toHaveLength(2);
    });

    test("sessions come back with their row id, as the other adapters return it", async () => {
      const user = await newUser();
      const sessionToken = hex();
      const created = await adapter.createSession({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + DAY),
      });
      const { rows } = await store.client.query(
        `SELECT "id" FROM "${store.schema}"."sessions" WHERE "sessionToken" = $1`,
        [sessionToken],
      );
      const id = (rows[0] as { id: string }).id;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created).toMatchObject({ id, sessionToken });
      expect((await adapter.getSessionAndUser(sessionToken))?.session).toMatchObject({ id });
      const later = new Date(Date.now() + 2 * DAY);
      expect(await adapter.updateSession({ sessionToken, expires: later })).toMatchObject({ id });
      expect(await adapter.deleteSession(sessionToken)).toMatchObject({ id });
    });

    test("20 concurrent linkAccount calls for one provider account leave one row", async () => {
      const user = await newUser();
      const account = newAccount(user.id);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => adapter.linkAccount({ ...account })),
      );
      const linked = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r) => r.status === "rejected");
      expect(linked).toHaveLength(1);
      for (const r of refused) expect(r.reason).toMatchObject({ code: "23505" });
      expect(await count("accounts", `"providerAccountId" = $1`, [account.providerAccountId])).toBe(
        1,
      );
      expect(await adapter.getUserByAccount(account)).toEqual(user);
    });

    test("many users may have no email, but an email belongs to one user", async () => {
      const email = `pg-${hex()}@example.com`;
      const first = await newUser(email);
      await expect(newUser(email)).rejects.toMatchObject({ code: "23505" });
      await expect(adapter.updateUser({ id: (await newUser()).id, email })).rejects.toMatchObject({
        code: "23505",
      });
      expect(await adapter.getUserByEmail(email)).toEqual(first);

      const noEmail = await Promise.all([newUser(""), newUser(""), newUser("")]);
      expect(new Set(noEmail.map((u) => u.id)).size).toBe(3);
      expect(await adapter.getUserByEmail("")).toBeNull();
    });

    test("ids are made by the database unless given", async () => {
      const user = await adapter.createUser({ id: "", email: "", emailVerified: null });
      expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
      const given = `custom-${hex()}`;
      expect((await adapter.createUser({ id: given, email: "", emailVerified: null })).id).toBe(
        given,
      );
      const account = await adapter.linkAccount(newAccount(user.id));
      expect(account.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    test("account token fields round-trip, absent ones stay absent", async () => {
      const user = await newUser();
      const full: AdapterAccount = {
        ...newAccount(user.id),
        type: "oidc",
        refresh_token: hex(),
        id_token: `${hex()}.${hex()}.${hex()}`,
        scope: "openid email",
        session_state: { sid: hex() },
        authorization_details: [{ type: "payment_initiation", amount: "10.00" }],
      };
      const withId = { id: expect.any(String) };
      expect(await adapter.linkAccount(full)).toEqual({ ...full, ...withId });
      expect(await adapter.getAccount(full.providerAccountId, full.provider)).toEqual({
        ...full,
        ...withId,
      });
      const bare: AdapterAccount = {
        userId: user.id,
        type: "email",
        provider: "email",
        providerAccountId: hex(),
      };
      await adapter.linkAccount(bare);
      expect(await adapter.getAccount(bare.providerAccountId, "email")).toEqual({
        ...bare,
        ...withId,
      });
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
    });

    test("errors are thrown, with the database's SQLSTATE", async () => {
      const orphan = { sessionToken: hex(), userId: randomUUID(), expires: new Date() };
      await expect(adapter.createSession(orphan)).rejects.toMatchObject({ code: "23503" });
      await expect(adapter.updateUser({ id: randomUUID(), name: "nobody" })).rejects.toThrow(
        "no user with this id",
      );
      await expect(adapter.updateAuthenticatorCounter(hex(), 1)).rejects.toThrow(
        "no authenticator with this credential id",
      );
    });

    test("updateAccount writes the fields given; with ifRefreshToken only over that token", async () => {
      const user = await newUser();
      const account = await adapter.linkAccount({ ...newAccount(user.id), refresh_token: "r1" });
      const key = { provider: account.provider, providerAccountId: account.providerAccountId };
      const updated = await adapter.updateAccount(
        { ...key, access_token: "a2", refresh_token: "r2", expires_at: 1_900_000_000 },
        { ifRefreshToken: "r1" },
      );
      expect(updated).toEqual({
        ...account,
        access_token: "a2",
        refresh_token: "r2",
        expires_at: 1_900_000_000,
      });
      // The second writer's token is stale: nothing written.
      expect(
        await adapter.updateAccount({ ...key, access_token: "a3" }, { ifRefreshToken: "r1" }),
      ).toBeNull();
      expect(await adapter.getAccount(key.providerAccountId, key.provider)).toEqual(updated);
      // Without the condition, and with the marker a refused refresh leaves.
      expect(await adapter.updateAccount({ ...key, error: "RefreshTokenError" })).toEqual({
        ...updated,
        error: "RefreshTokenError",
      });
      const cleared = await adapter.updateAccount({ ...key, error: null });
      expect(cleared).toEqual(updated);
      expect(cleared).not.toHaveProperty("error");
      // `null` matches an account with no stored refresh token, and only that.
      expect(
        await adapter.updateAccount({ ...key, scope: "b" }, { ifRefreshToken: null }),
      ).toBeNull();
      const bare = await adapter.linkAccount(newAccount(user.id));
      const bareKey = { provider: bare.provider, providerAccountId: bare.providerAccountId };
      expect(
        await adapter.updateAccount({ ...bareKey, scope: "a" }, { ifRefreshToken: null }),
      ).toEqual({ ...bare, scope: "a" });
      // No fields: the account as stored (or null when the condition fails).
      expect(await adapter.updateAccount(key)).toEqual(updated);
      expect(await adapter.updateAccount(key, { ifRefreshToken: "x" })).toBeNull();
      expect(
        await adapter.updateAccount({ provider: "race", providerAccountId: hex() }),
      ).toBeNull();
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
    });

    test("lockAccount: one holder at a time, released by its holder, expires by itself", async () => {
      const key = { provider: "race", providerAccountId: hex() };
      const other = { provider: "race", providerAccountId: hex() };
      const attempts = await Promise.all(
        Array.from({ length: 10 }, () => adapter.lockAccount(key, 60_000)),
      );
      const held = attempts.filter((r) => r !== null);
      expect(held).toHaveLength(1);
      // Another account is not locked by it.
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
        await count("account_locks", `"key" = $1`, [
          JSON.stringify([key.provider, key.providerAccountId]),
        ]),
      ).toBe(0);
      await expect(adapter.lockAccount(key, 0)).rejects.toThrow("positive ttlMs");
    });

    test("deleteUser returns the user and removes what belongs to it", async () => {
      const user = await newUser();
      await adapter.linkAccount(newAccount(user.id));
      await adapter.createSession({ sessionToken: hex(), userId: user.id, expires: new Date() });
      expect(await adapter.deleteUser(user.id)).toEqual(user);
      expect(await count("accounts", `"userId" = $1`, [user.id])).toBe(0);
      expect(await count("sessions", `"userId" = $1`, [user.id])).toBe(0);
      expect(await adapter.deleteUser(user.id)).toBeNull();
    });
  });
}
