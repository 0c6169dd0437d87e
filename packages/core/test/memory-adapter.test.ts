import { runAdapterTests } from "@gatehousejs/adapter-test";
import type { AdapterUser } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { describe, expect, test } from "vitest";

const shared = MemoryAdapter();
runAdapterTests({ name: "MemoryAdapter", adapter: shared, db: shared.rows });

// An adapter written for Auth.js has no listAccountsByUserId: the suite passes without it and
// skips the tests that call it.
const { listAccountsByUserId: _omitted, ...authjsShaped } = MemoryAdapter();
runAdapterTests({ name: "MemoryAdapter without listAccountsByUserId", adapter: authjsShaped });

const user = (id: string): AdapterUser => ({
  id,
  email: `${id}@example.com`,
  emailVerified: new Date("2026-01-02T03:04:05.678Z"),
  name: "Ada",
  image: null,
});

describe("MemoryAdapter", () => {
  test("stored rows are copies: mutating inputs or results leaves the store unchanged", async () => {
    const adapter = MemoryAdapter();
    const input = user("u1");
    const created = await adapter.createUser(input);
    input.name = "changed input";
    created.name = "changed result";
    (input.emailVerified as Date).setFullYear(1999);
    const found = await adapter.getUser("u1");
    expect(found?.name).toBe("Ada");
    expect(found?.emailVerified).toEqual(new Date("2026-01-02T03:04:05.678Z"));
    found!.name = "changed again";
    expect((await adapter.getUser("u1"))?.name).toBe("Ada");
    expect(adapter.rows.user("u1")?.name).toBe("Ada");
  });

  test("deleteUser returns the deleted user, cascades, and returns null the second time", async () => {
    const adapter = MemoryAdapter();
    await adapter.createUser(user("u1"));
    await adapter.createUser(user("u2"));
    for (const userId of ["u1", "u2"]) {
      await adapter.linkAccount({
        userId,
        type: "oauth",
        provider: "p",
        providerAccountId: userId,
      });
      await adapter.createSession({ sessionToken: `s-${userId}`, userId, expires: new Date() });
      await adapter.createAuthenticator({
        credentialID: `c-${userId}`,
        credentialPublicKey: "key",
        counter: 0,
        credentialBackedUp: false,
        credentialDeviceType: "singleDevice",
        providerAccountId: userId,
        userId,
      });
    }
    expect(await adapter.deleteUser("u1")).toEqual(user("u1"));
    expect(adapter.rows.count()).toEqual({
      users: 1,
      accounts: 1,
      sessions: 1,
      verificationTokens: 0,
      authenticators: 1,
    });
    expect(adapter.rows.session("s-u2")).not.toBeNull();
    expect(await adapter.deleteUser("u1")).toBeNull();
  });

  test("enforces uniqueness and references like a relational database", async () => {
    const adapter = MemoryAdapter();
    await adapter.createUser(user("u1"));
    await expect(adapter.createUser(user("u1"))).rejects.toThrow(/already exists/);
    await expect(adapter.createUser({ ...user("u2"), email: "u1@example.com" })).rejects.toThrow(
      /email/,
    );
    const session = { sessionToken: "s", userId: "nobody", expires: new Date() };
    await expect(adapter.createSession(session)).rejects.toThrow(/does not exist/);
    await expect(adapter.updateUser({ id: "nobody", name: "x" })).rejects.toThrow(/no user/);
  });

  test("getUserByEmail matches the email exactly", async () => {
    const adapter = MemoryAdapter();
    await adapter.createUser(user("u1"));
    expect(await adapter.getUserByEmail("U1@example.com")).toBeNull();
    expect(await adapter.getUserByEmail("u1@example.com")).toMatchObject({ id: "u1" });
  });

  test("updates ignore undefined fields; absent rows give null", async () => {
    const adapter = MemoryAdapter();
    await adapter.createUser(user("u1"));
    const updated = await adapter.updateUser({ id: "u1", name: undefined, image: "pic.png" });
    expect(updated).toMatchObject({ name: "Ada", image: "pic.png" });
    expect(await adapter.updateSession({ sessionToken: "missing" })).toBeNull();
    expect(await adapter.deleteSession("missing")).toBeNull();
    expect(await adapter.unlinkAccount({ provider: "p", providerAccountId: "x" })).toBeUndefined();
  });

  test("clear empties every table", async () => {
    const adapter = MemoryAdapter();
    await adapter.createUser(user("u1"));
    await adapter.createVerificationToken({ identifier: "a", token: "t", expires: new Date() });
    adapter.clear();
    expect(Object.values(adapter.rows.count())).toEqual([0, 0, 0, 0, 0]);
  });
});
