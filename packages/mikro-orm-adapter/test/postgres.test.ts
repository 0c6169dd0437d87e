import { randomBytes } from "node:crypto";
import { runAdapterTests } from "@gatehousejs/adapter-test";
import { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { gatehouseEntities, MikroOrmAdapter } from "../src/index.js";
import { databaseUrl, sqlReaders, unreachable } from "./support/databases.js";
import { providerSidCases, updateAccountCases } from "./support/tokens.js";

// A fresh schema per run, so runs never see each other's rows; dropped at the end.
const schema = `gh_mikro_${randomBytes(6).toString("hex")}`;
const queries: string[] = [];
const options = {
  clientUrl: databaseUrl,
  schema,
  entities: [...gatehouseEntities.list],
  pool: { min: 0, max: 10 },
  // Connect in the probe below, so that an unreachable server skips (or, in CI, fails) clearly.
  connect: false,
  // Queries are collected (not printed), to count them.
  debug: ["query" as const],
  logger: (message: string) => queries.push(message),
};
const orm = await MikroORM.init(options);
const skip = await unreachable(`PostgreSQL at ${new URL(databaseUrl).host}`, async () => {
  await orm.connect();
  const check = await orm.checkConnection();
  if (!check.ok) throw new Error(check.reason);
});
// Not awaited: a silent server would hold the close until its connection attempt gives up.
if (skip) orm.close(true).catch(() => {});

const qualified = (table: string) => `"${schema}"."${table}"`;
const adapter = MikroOrmAdapter(orm);
const DAY = 24 * 60 * 60 * 1000;

describe.skipIf(skip)("MikroOrmAdapter on PostgreSQL", () => {
  // A second ORM with its own connection pool, for races between processes.
  let other: MikroORM | undefined;

  beforeAll(async () => {
    await orm.schema.createSchema();
    other = await MikroORM.init({ ...options, connect: true, logger: () => {} });
  });
  afterAll(async () => {
    await other?.close(true);
    await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
    await orm.close(true);
  });

  runAdapterTests({
    name: "mikro-orm (PostgreSQL)",
    adapter,
    db: sqlReaders(orm, qualified),
  });

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

  test("20 concurrent deleteAuthenticator calls from two connection pools return the passkey once", async () => {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email: `passkey-${randomBytes(8).toString("hex")}@example.com`,
      emailVerified: null,
    });
    const created = await adapter.createAuthenticator({
      credentialID: randomBytes(32).toString("base64url"),
      credentialPublicKey: randomBytes(77).toString("base64"),
      counter: 0,
      credentialBackedUp: false,
      credentialDeviceType: "singleDevice",
      providerAccountId: "race",
      transports: null,
      userId: user.id,
    });
    const second = MikroOrmAdapter(() => other!);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? second : adapter).deleteAuthenticator(created.credentialID),
      ),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toEqual([created]);
    expect(await adapter.getAuthenticator(created.credentialID)).toBeNull();
    await adapter.deleteUser(user.id);
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
    await adapter.createUser({ ...nobody(), email });
    const duplicate = adapter.createUser({ ...nobody(), email });
    await expect(duplicate).rejects.toThrow(/createUser failed \(UniqueConstraintViolation/);
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
    // The cause names the failure without MikroORM's message, which quotes the SQL parameters.
    const cause = (error as Error).cause as { name?: string; code?: string };
    expect(cause.name).toBe("UniqueConstraintViolationException");
    expect(JSON.stringify(cause)).not.toContain(session.sessionToken);
  });

  test("the schema is what updateSchema would create: no pending changes", async () => {
    const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(pending, pending).toBe("");
  });
});
