import { randomBytes } from "node:crypto";
import { runAdapterTests } from "@gatehousejs/adapter-test";
import { MikroORM } from "@mikro-orm/mariadb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MikroOrmAdapter } from "../src/index.js";
import { mariadbReaders, mariadbTestOrm } from "./support/mariadb.js";
import { providerSidCases, updateAccountCases } from "./support/tokens.js";

const queries: string[] = [];
const { orm, options, skip, drop } = await mariadbTestOrm({
  // Queries are collected (not printed), to count them.
  debug: ["query"],
  logger: (message: string) => queries.push(message),
});
const adapter = MikroOrmAdapter(orm);
const DAY = 24 * 60 * 60 * 1000;
const sql = (text: string, params?: unknown[]) => orm.em.getConnection().execute(text, params);

describe.skipIf(skip)("MikroOrmAdapter on MariaDB", () => {
  // A second ORM with its own connection pool, for races between processes.
  let other: MikroORM | undefined;

  beforeAll(async () => {
    await orm.schema.createSchema();
    other = await MikroORM.init({ ...options, connect: true, logger: () => {} });
  });
  afterAll(async () => {
    await other?.close(true);
    await drop();
  });

  runAdapterTests({ name: "mikro-orm (MariaDB)", adapter, db: mariadbReaders(orm) });

  updateAccountCases(() => adapter);
  providerSidCases(() => adapter);

  test("50 concurrent useVerificationToken calls from two connection pools get the token once", async () => {
    const token = {
      identifier: `race-${randomBytes(8).toString("hex")}@example.com`,
      token: randomBytes(32).toString("hex"),
      expires: new Date(Date.now() + DAY),
    };
    await adapter.createVerificationToken(token);
    const second = MikroOrmAdapter(() => other!);
    const key = { identifier: token.identifier, token: token.token };
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? second : adapter).useVerificationToken(key)),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toEqual(token);
    expect(await adapter.useVerificationToken(key)).toBeNull();
  });

  test("getSessionAndUser and getUserByAccount each read in one query", async () => {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `one-query-${randomBytes(8).toString("hex")}@example.com`,
      emailVerified: null,
    });
    const session = {
      sessionToken: randomBytes(16).toString("hex"),
      userId: user.id,
      expires: new Date(Date.now() + DAY),
    };
    await adapter.createSession(session);
    queries.length = 0;
    const found = await adapter.getSessionAndUser(session.sessionToken);
    expect(found).toEqual({ session: expect.objectContaining(session), user });
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/select .* join /);

    const account = {
      userId: user.id,
      type: "oauth" as const,
      provider: "gatehouse-test",
      providerAccountId: randomBytes(8).toString("hex"),
    };
    await adapter.linkAccount(account);
    queries.length = 0;
    expect(await adapter.getUserByAccount(account)).toEqual(user);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/select .* join /);
  });

  test("users without an email do not collide; real addresses are unique", async () => {
    const nobody = () => ({ id: crypto.randomUUID(), email: "", emailVerified: null });
    await adapter.createUser(nobody());
    await adapter.createUser(nobody());
    expect(await adapter.getUserByEmail("")).toBeNull();
    const email = `unique-${randomBytes(8).toString("hex")}@example.com`;
    const first = await adapter.createUser({ ...nobody(), email });
    // As on PostgreSQL (test/postgres.test.ts): the second user with the address is refused.
    const duplicate = adapter.createUser({ ...nobody(), email });
    await expect(duplicate).rejects.toThrow(/createUser failed \(UniqueConstraintViolation/);
    // The refused user is not there; the first one is, and reads back without `email_key`.
    expect(await adapter.getUserByEmail(email)).toEqual(first);
    expect(Object.keys(first).sort()).toEqual(["email", "emailVerified", "id", "image", "name"]);
    // Exact, as on PostgreSQL: another case, or a trailing space, is another address.
    expect(await adapter.getUserByEmail(email.toUpperCase())).toBeNull();
    await expect(
      adapter.createUser({ ...nobody(), email: email.toUpperCase() }),
    ).resolves.toMatchObject({ email: email.toUpperCase() });
    await expect(adapter.createUser({ ...nobody(), email: `${email} ` })).resolves.toMatchObject({
      email: `${email} `,
    });

    // The database refuses it too, whoever writes: a unique index on the generated `email_key`
    // (`NULL` for ""), and the plain index on `email` for lookups.
    const indexes = (await sql(
      "select index_name, non_unique, column_name from information_schema.statistics where table_schema = database() and table_name = 'users' and index_name like 'users_email%' order by index_name",
    )) as { index_name: string; non_unique: number | bigint; column_name: string }[];
    expect(indexes.map((i) => [i.index_name, Number(i.non_unique), i.column_name])).toEqual([
      ["users_email_key", 1, "email"],
      ["users_email_unique", 0, "email_key"],
    ]);
    const insert = "insert into `users` (`id`, `email`) values (?, ?)";
    await expect(sql(insert, [crypto.randomUUID(), email])).rejects.toThrow(/Duplicate entry/);
    await sql(insert, [crypto.randomUUID(), ""]);
    const keys = (await sql(
      "select `email_key` as k from `users` where `email` in (?, '') order by `email_key` desc",
      [email],
    )) as { k: Buffer | null }[];
    // The collation ignores trailing spaces, so the `in` finds both addresses; their keys differ.
    expect(keys.map((row) => row.k?.toString("utf8") ?? null)).toEqual([
      `${email} `,
      email,
      ...keys.slice(2).map(() => null),
    ]);
  });

  test("getUserByEmail reads the unique email_key, exactly", async () => {
    const email = `exact-${randomBytes(8).toString("hex")}@example.com`;
    const plain = await adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: null });
    const spaced = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `${email} `,
      emailVerified: null,
    });
    queries.length = 0;
    expect(await adapter.getUserByEmail(email)).toEqual(plain);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/where `u0`\.`email_key` = /);
    expect(await adapter.getUserByEmail(`${email} `)).toEqual(spaced);
    expect(await adapter.getUserByEmail(`${email}  `)).toBeNull();
  });

  test("updateUser refuses another user's address, as createUser does", async () => {
    const email = `taken-${randomBytes(8).toString("hex")}@example.com`;
    await adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: null });
    const other = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `free-${randomBytes(8).toString("hex")}@example.com`,
      emailVerified: null,
    });
    const update = adapter.updateUser({ id: other.id, email });
    await expect(update).rejects.toThrow(/updateUser failed \(UniqueConstraintViolation/);
    expect(await adapter.getUser(other.id)).toEqual(other);
    // `emailKey` in the input is ignored: the database computes it from `email`.
    const forged = { id: other.id, emailKey: email } as Parameters<typeof adapter.updateUser>[0];
    expect(await adapter.updateUser(forged)).toEqual(other);
    const madeWithKey = await adapter.createUser({
      id: crypto.randomUUID(),
      email: "",
      emailVerified: null,
      emailKey: email,
    } as Parameters<typeof adapter.createUser>[0]);
    expect(madeWithKey).not.toHaveProperty("emailKey");
    // Dropping the address (to "") and taking a free one both work.
    await expect(adapter.updateUser({ id: other.id, email: "" })).resolves.toMatchObject({
      email: "",
    });
    const free = `free-${randomBytes(8).toString("hex")}@example.com`;
    const updated = await adapter.updateUser({ id: other.id, email: free, name: "Other" });
    expect(updated).toEqual({ ...other, email: free, name: "Other" });
    expect(await adapter.getUserByEmail(free)).toEqual(updated);
  });

  test("20 concurrent createUser calls with one address from two pools make one user", async () => {
    const email = `race-${randomBytes(8).toString("hex")}@example.com`;
    const second = MikroOrmAdapter(() => other!);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? second : adapter).createUser({
          id: crypto.randomUUID(),
          email,
          emailVerified: null,
        }),
      ),
    );
    const created = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected");
    expect(created).toHaveLength(1);
    for (const r of refused) {
      expect(String(r.reason)).toMatch(/createUser failed \(UniqueConstraintViolation/);
    }
    const rows = (await sql("select `id` from `users` where `email` = ?", [email])) as {
      id: string;
    }[];
    expect(rows.map((row) => row.id)).toEqual([created[0]?.value.id]);
    expect(await adapter.getUserByEmail(email)).toEqual(created[0]?.value);
  });

  test("tokens, credential ids and provider account ids compare case-sensitively", async () => {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `case-${randomBytes(8).toString("hex")}@example.com`,
      emailVerified: null,
    });
    const lower = randomBytes(12).toString("hex");
    const upper = lower.toUpperCase();
    const expires = new Date(Date.now() + DAY);

    // Sessions: two tokens that differ only in case are two sessions, each found by its own.
    await adapter.createSession({ sessionToken: lower, userId: user.id, expires });
    expect(await adapter.getSessionAndUser(upper)).toBeNull();
    await adapter.createSession({ sessionToken: upper, userId: user.id, expires });
    expect((await adapter.getSessionAndUser(upper))?.session.sessionToken).toBe(upper);
    await adapter.deleteSession(upper);
    expect((await adapter.getSessionAndUser(lower))?.session.sessionToken).toBe(lower);

    // Verification tokens: the other case neither matches nor is used up.
    const identifier = `case-${lower}@example.com`;
    await adapter.createVerificationToken({ identifier, token: lower, expires });
    expect(await adapter.useVerificationToken({ identifier, token: upper })).toBeNull();
    await adapter.createVerificationToken({ identifier, token: upper, expires });
    expect(await adapter.useVerificationToken({ identifier, token: lower })).toEqual({
      identifier,
      token: lower,
      expires,
    });

    // Provider accounts: ids differing in case are two accounts, of two users.
    const other = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `case-other-${lower}@example.com`,
      emailVerified: null,
    });
    const account = { type: "oauth" as const, provider: "gatehouse-test" };
    await adapter.linkAccount({ ...account, userId: user.id, providerAccountId: lower });
    expect(await adapter.getUserByAccount({ ...account, providerAccountId: upper })).toBeNull();
    await adapter.linkAccount({ ...account, userId: other.id, providerAccountId: upper });
    expect(await adapter.getUserByAccount({ ...account, providerAccountId: upper })).toEqual(other);
    expect(await adapter.getUserByAccount({ ...account, providerAccountId: lower })).toEqual(user);

    // Refresh locks: one per account, whatever the case of the other's id.
    const release = await adapter.lockAccount(
      { provider: "gatehouse-test", providerAccountId: lower },
      60_000,
    );
    expect(release).not.toBeNull();
    const second = await adapter.lockAccount(
      { provider: "gatehouse-test", providerAccountId: upper },
      60_000,
    );
    expect(second).not.toBeNull();
    await release?.();
    await second?.();

    // WebAuthn credentials: base64url ids are case-sensitive.
    const credential = {
      userId: user.id,
      providerAccountId: lower,
      credentialPublicKey: "cHVibGljLWtleQ",
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
    };
    const credentialID = `Ab${lower}`;
    await adapter.createAuthenticator({ ...credential, credentialID });
    expect(await adapter.getAuthenticator(credentialID.toLowerCase())).toBeNull();
    await adapter.createAuthenticator({ ...credential, credentialID: credentialID.toUpperCase() });
    expect((await adapter.getAuthenticator(credentialID))?.credentialID).toBe(credentialID);

    // The columns themselves compare in binary, so a query by hand does too.
    const rows = (await sql("select count(*) as n from `sessions` where `sessionToken` = ?", [
      upper.toLowerCase(),
    ])) as { n: number | bigint }[];
    expect(Number(rows[0]?.n)).toBe(1);
  });

  test("dates keep their milliseconds; JSON and bigint columns read back as written", async () => {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `dates-${randomBytes(8).toString("hex")}@example.com`,
      emailVerified: new Date("2026-01-02T03:04:05.678Z"),
    });
    expect((await adapter.getUser(user.id))?.emailVerified?.toISOString()).toBe(
      "2026-01-02T03:04:05.678Z",
    );
    // Stored in UTC, with its milliseconds.
    const raw = (await sql(
      "select cast(`emailVerified` as char) as v from `users` where `id` = ?",
      [user.id],
    )) as { v: string }[];
    expect(raw[0]?.v).toBe("2026-01-02 03:04:05.678");
    const account = {
      userId: user.id,
      type: "oidc" as const,
      provider: "gatehouse-test",
      providerAccountId: randomBytes(8).toString("hex"),
      expires_at: 9_007_199_254, // seconds, past 2^31
      session_state: { sid: "s", nested: [1, "two", null] },
    };
    await adapter.linkAccount(account);
    const stored = await adapter.getAccount(account.providerAccountId, account.provider);
    expect(stored).toMatchObject(account);
  });

  test("database errors do not quote the query or its parameters", async () => {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `errors-${randomBytes(8).toString("hex")}@example.com`,
      emailVerified: null,
    });
    const session = {
      sessionToken: randomBytes(16).toString("hex"),
      userId: user.id,
      expires: new Date(),
    };
    await adapter.createSession(session);
    const error = await adapter.createSession(session).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toContain(session.sessionToken);
    const cause = (error as Error).cause as { name?: string; code?: string };
    expect(cause.name).toBe("UniqueConstraintViolationException");
    expect(JSON.stringify(cause)).not.toContain(session.sessionToken);
  });

  test("the schema is what updateSchema would create: no pending changes", async () => {
    const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(pending, pending).toBe("");
  });
});
