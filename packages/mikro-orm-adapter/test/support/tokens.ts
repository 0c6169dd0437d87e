/**
 * updateAccount's cases (compare-and-swap on the refresh token), shared by the SQLite and
 * PostgreSQL files.
 */
import { expect, test } from "vitest";
import type { MikroOrmAdapterMethods } from "../../src/index.js";

export function updateAccountCases(adapter: () => MikroOrmAdapterMethods): void {
  const newUser = () =>
    adapter().createUser({
      id: crypto.randomUUID(),
      email: `${crypto.randomUUID()}@example.com`,
      emailVerified: null,
    });
  const newAccount = (userId: string, refresh_token?: string) =>
    adapter().linkAccount({
      userId,
      type: "oauth",
      provider: "gatehouse-test",
      providerAccountId: crypto.randomUUID(),
      access_token: "a1",
      expires_at: 1_800_000_000,
      ...(refresh_token ? { refresh_token } : {}),
    });

  test("updateAccount writes the fields given; with ifRefreshToken only over that token", async () => {
    const user = await newUser();
    const account = await newAccount(user.id, "r1");
    const key = { provider: account.provider, providerAccountId: account.providerAccountId };
    const updated = await adapter().updateAccount(
      { ...key, access_token: "a2", refresh_token: "r2", expires_at: 1_900_000_000 },
      { ifRefreshToken: "r1" },
    );
    expect(updated).toEqual({
      ...account,
      access_token: "a2",
      refresh_token: "r2",
      expires_at: 1_900_000_000,
    });
    expect(
      await adapter().updateAccount({ ...key, access_token: "a3" }, { ifRefreshToken: "r1" }),
    ).toBeNull();
    expect(await adapter().getAccount(key.providerAccountId, key.provider)).toEqual(updated);
    // The marker a refused refresh leaves, then cleared; the owner never changes.
    const other = await newUser();
    expect(
      await adapter().updateAccount({ ...key, error: "RefreshTokenError", userId: other.id }),
    ).toEqual({ ...updated, error: "RefreshTokenError" });
    const cleared = await adapter().updateAccount({ ...key, error: null });
    expect(cleared).toEqual(updated);
    // `null` matches an account with no stored refresh token, and only that.
    expect(
      await adapter().updateAccount({ ...key, scope: "b" }, { ifRefreshToken: null }),
    ).toBeNull();
    const bare = await newAccount(user.id);
    const bareKey = { provider: bare.provider, providerAccountId: bare.providerAccountId };
    expect(
      await adapter().updateAccount({ ...bareKey, scope: "a" }, { ifRefreshToken: null }),
    ).toEqual({ ...bare, scope: "a" });
    // No fields: the account as stored, or null when the condition fails.
    expect(await adapter().updateAccount(key)).toEqual(updated);
    expect(await adapter().updateAccount(key, { ifRefreshToken: "x" })).toBeNull();
    expect(
      await adapter().updateAccount({ provider: "gatehouse-test", providerAccountId: "nobody" }),
    ).toBeNull();
  });

  test("20 concurrent compare-and-swap updates over one refresh token: exactly one writes", async () => {
    const user = await newUser();
    const account = await newAccount(user.id, "old");
    const key = { provider: account.provider, providerAccountId: account.providerAccountId };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        adapter().updateAccount({ ...key, refresh_token: `new-${i}` }, { ifRefreshToken: "old" }),
      ),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const stored = await adapter().getAccount(key.providerAccountId, key.provider);
    expect(stored?.refresh_token).toBe(winners[0]?.refresh_token);
  });
}

export function providerSidCases(adapter: () => MikroOrmAdapterMethods): void {
  test("a session stores providerSid, set at creation or by updateSession; left out when none", async () => {
    const user = await adapter().createUser({
      id: crypto.randomUUID(),
      email: `${crypto.randomUUID()}@example.com`,
      emailVerified: null,
    });
    const expires = new Date(Date.now() + 3_600_000);
    const token = crypto.randomUUID();
    await adapter().createSession({
      sessionToken: token,
      userId: user.id,
      expires,
      providerSid: "s1",
    });
    expect((await adapter().getSessionAndUser(token))?.session.providerSid).toBe("s1");
    const plain = crypto.randomUUID();
    await adapter().createSession({ sessionToken: plain, userId: user.id, expires });
    expect((await adapter().getSessionAndUser(plain))?.session).not.toHaveProperty("providerSid");
    expect(await adapter().updateSession({ sessionToken: plain, providerSid: "s2" })).toMatchObject(
      {
        providerSid: "s2",
      },
    );
    const listed = await adapter().listSessionsByUserId(user.id);
    expect(listed.map((s) => s.providerSid).sort()).toEqual(["s1", "s2"]);
  });
}
