/**
 * Session records (issue 12) on PGlite: the migration adds their columns to a `sessions` table
 * made by an older version, whose rows stay readable; the revocation store's check is one
 * statement.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, test } from "vitest";
import { migrate, PostgresAdapter, PostgresRevocationStore } from "../src/index.js";
import { counting } from "./support/cases.js";

const db = new PGlite();
afterAll(() => db.close());

const DAY = 86_400_000;

/** The tables users and sessions as the adapter made them before session records. */
const OLD_TABLES = [
  `CREATE SCHEMA "old_app"`,
  `CREATE TABLE "old_app"."users" (
    "id" text PRIMARY KEY DEFAULT gen_random_uuid()::text, "name" text,
    "email" text NOT NULL DEFAULT '', "emailVerified" timestamptz, "image" text)`,
  `CREATE TABLE "old_app"."sessions" (
    "id" text PRIMARY KEY DEFAULT gen_random_uuid()::text,
    "sessionToken" text NOT NULL,
    "userId" text NOT NULL REFERENCES "old_app"."users" ("id") ON DELETE CASCADE,
    "expires" timestamptz NOT NULL,
    CONSTRAINT "sessions_sessionToken_key" UNIQUE ("sessionToken"))`,
];

describe("a verification_tokens table from before sign-in code tries", () => {
  test("migrate adds the tries column; an old token's tries count from 1", async () => {
    await db.query(`CREATE SCHEMA "old_tokens"`);
    await db.query(`CREATE TABLE "old_tokens"."verification_tokens" (
      "identifier" text NOT NULL, "token" text NOT NULL, "expires" timestamptz NOT NULL,
      PRIMARY KEY ("identifier", "token"))`);
    const expires = new Date(Date.now() + DAY);
    await db.query(
      `INSERT INTO "old_tokens"."verification_tokens" VALUES ('old@example.com', 'hash', $1)`,
      [expires],
    );
    await migrate(db, { schema: "old_tokens" });
    const adapter = PostgresAdapter(db, { schema: "old_tokens" });
    const key = { identifier: "old@example.com", token: "hash" };
    expect(await adapter.countVerificationTokenTry(key, 2)).toBe(1);
    expect(await adapter.countVerificationTokenTry(key, 2)).toBe(2);
    expect(await adapter.countVerificationTokenTry(key, 2)).toBeNull();
    expect(await adapter.useVerificationToken(key)).toEqual({ ...key, expires });
  });
});

describe("a sessions table from before session records", () => {
  test("migrate adds the columns; old rows read back without metadata, new rows with theirs", async () => {
    for (const sql of OLD_TABLES) await db.query(sql);
    const userId = randomUUID();
    const oldToken = randomBytes(16).toString("hex");
    const expires = new Date(Date.now() + DAY);
    await db.query(`INSERT INTO "old_app"."users" ("id", "email") VALUES ($1, 'old@example.com')`, [
      userId,
    ]);
    await db.query(
      `INSERT INTO "old_app"."sessions" ("sessionToken", "userId", "expires") VALUES ($1, $2, $3)`,
      [oldToken, userId, expires],
    );

    await migrate(db, { schema: "old_app" });
    await migrate(db, { schema: "old_app" }); // again: nothing to do, nothing fails
    const adapter = PostgresAdapter(db, { schema: "old_app" });

    const found = await adapter.getSessionAndUser(oldToken);
    expect(found?.session).toEqual({
      id: expect.any(String),
      sessionToken: oldToken,
      userId,
      expires,
    });
    // Nothing recorded means no field at all, as Auth.js's contract reads a session.
    expect(Object.keys(found?.session ?? {}).sort()).toEqual([
      "expires",
      "id",
      "sessionToken",
      "userId",
    ]);

    const created = new Date(Date.now() - 5000);
    const fresh = await adapter.createSession({
      sessionToken: randomBytes(16).toString("hex"),
      userId,
      expires,
      createdAt: created,
      lastSeenAt: created,
      provider: "credentials",
      providerType: "credentials",
      client: "Safari 18 on iOS",
      ip: "2001:db8:85a3::",
    });
    const seen = new Date();
    await adapter.updateSession({ sessionToken: fresh.sessionToken, lastSeenAt: seen });
    const listed = await adapter.listSessionsByUserId(userId);
    // Oldest first; the old row, with no creation time, last.
    expect(listed.map((s) => s.sessionToken)).toEqual([fresh.sessionToken, oldToken]);
    expect(listed[0]).toMatchObject({
      createdAt: created,
      lastSeenAt: seen,
      provider: "credentials",
      client: "Safari 18 on iOS",
      ip: "2001:db8:85a3::",
    });

    expect(await adapter.deleteSessionsByUserId(userId, { except: oldToken })).toBe(1);
    expect(await adapter.deleteSessionsByUserId(userId)).toBe(1);
    expect(await adapter.listSessionsByUserId(userId)).toEqual([]);
    expect(await adapter.deleteSessionsByUserId(userId)).toBe(0);
  });
});

describe("PostgresRevocationStore", () => {
  test("check is one SQL statement", async () => {
    await PostgresRevocationStore(db, { schema: "rev_count" }).migrate();
    const client = counting(db);
    const store = PostgresRevocationStore(client, { schema: "rev_count" });
    const params = { userId: randomUUID(), sessionId: "s".repeat(22), issuedAt: 1 };
    expect(await store.check(params)).toBe(false);
    expect(client.statements).toHaveLength(1);
    await store.revokeUser({ userId: params.userId, at: 2, expires: new Date(Date.now() + DAY) });
    client.statements.length = 0;
    expect(await store.check(params)).toBe(true);
    expect(client.statements).toHaveLength(1);
  });

  test("refuses an unsafe schema name before any SQL runs", () => {
    const client = counting(db);
    expect(() => PostgresRevocationStore(client, { schema: 'a"; DROP TABLE x' })).toThrow(
      TypeError,
    );
    expect(client.statements).toEqual([]);
  });
});

describe("the provider's session id (federated logout)", () => {
  test("a database session stores providerSid, set at creation or by updateSession", async () => {
    await migrate(db, { schema: "psid" });
    const adapter = PostgresAdapter(db, { schema: "psid" });
    const user = await adapter.createUser({ id: randomUUID(), email: "", emailVerified: null });
    const expires = new Date(Date.now() + 3_600_000);
    const token = randomBytes(16).toString("hex");
    await adapter.createSession({
      sessionToken: token,
      userId: user.id,
      expires,
      providerSid: "s1",
    });
    expect((await adapter.getSessionAndUser(token))?.session.providerSid).toBe("s1");
    const plain = randomBytes(16).toString("hex");
    await adapter.createSession({ sessionToken: plain, userId: user.id, expires });
    expect((await adapter.getSessionAndUser(plain))?.session).not.toHaveProperty("providerSid");
    await adapter.updateSession({ sessionToken: plain, providerSid: "s2" });
    const listed = await adapter.listSessionsByUserId(user.id);
    expect(listed.map((s) => s.providerSid).sort()).toEqual(["s1", "s2"]);
  });

  test("the revocation store's recorded JWT session keeps providerSid", async () => {
    const store = PostgresRevocationStore(db, { schema: "psid_rev" });
    await store.migrate();
    const userId = randomUUID();
    const expires = new Date(Date.now() + 3_600_000);
    await store.recordSession({ userId, sessionId: "j1", expires, providerSid: "op-sid" });
    await store.recordSession({ userId, sessionId: "j2", expires });
    const records = await store.listSessions(userId);
    expect(records.find((r) => r.sessionId === "j1")?.providerSid).toBe("op-sid");
    expect(records.find((r) => r.sessionId === "j2")).not.toHaveProperty("providerSid");
    // A re-issued token recorded without it keeps the recorded one.
    await store.recordSession({ userId, sessionId: "j1", expires, lastSeenAt: new Date() });
    expect((await store.listSessions(userId)).find((r) => r.sessionId === "j1")?.providerSid).toBe(
      "op-sid",
    );
  });
});
