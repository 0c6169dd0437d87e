/**
 * Upgrades on MariaDB, as the SQLite files test them one by one: `orm.schema.updateSchema()`
 * adds the columns and table that came after an app made its tables (password hashes, session
 * records, code tries, refresh locks, the unique `email_key`), and the rows made before read back.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MikroOrmAdapter } from "../src/index.js";
import { mariadbTestOrm } from "./support/mariadb.js";

const { orm, skip, drop } = await mariadbTestOrm();
const sql = (text: string) => orm.em.getConnection().execute(text);
const DAY = 86_400_000;

describe.skipIf(skip)("MikroOrmAdapter on MariaDB: updateSchema over older tables", () => {
  beforeAll(async () => {
    await orm.schema.createSchema();
  });
  afterAll(async () => {
    await drop();
  });

  test("updateSchema adds what came later; old rows read back without it", async () => {
    // The tables as an older version of the entities made them.
    await sql("drop table `account_locks`");
    await sql("alter table `accounts` drop column `passwordHash`");
    await sql(
      "alter table `sessions` drop column `createdAt`, drop column `lastSeenAt`, drop column `provider`, drop column `providerType`, drop column `client`, drop column `ip`",
    );
    await sql("alter table `verification_tokens` drop column `tries`");
    // Its unique index goes with it.
    await sql("alter table `users` drop column `email_key`");
    const userId = crypto.randomUUID();
    const expires = new Date(Date.now() + DAY);
    const stamp = expires.toISOString().replace("T", " ").replace("Z", "");
    await sql(`insert into \`users\` (\`id\`, \`email\`) values ('${userId}', 'old@example.com')`);
    await sql(`insert into \`accounts\` (\`id\`, \`userId\`, \`type\`, \`provider\`, \`providerAccountId\`, \`access_token\`)
      values ('old-account', '${userId}', 'oauth', 'github', '42', 'old-access-token')`);
    await sql(`insert into \`sessions\` (\`id\`, \`userId\`, \`sessionToken\`, \`expires\`)
      values ('old-session', '${userId}', 'old-token', '${stamp}')`);
    await sql(`insert into \`verification_tokens\` (\`identifier\`, \`token\`, \`expires\`)
      values ('old@example.com', 'hash', '${stamp}')`);

    const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(pending).toMatch(/create table `account_locks` \(`key` varbinary\(3072\) not null/);
    expect(pending).toMatch(/add `passwordHash` text collate utf8mb4_bin null/);
    for (const column of ["createdAt", "lastSeenAt"]) {
      expect(pending).toMatch(new RegExp(`add \`${column}\` datetime\\(3\\) null`));
    }
    for (const column of ["provider", "providerType", "client", "ip"]) {
      expect(pending).toMatch(new RegExp(`add \`${column}\` text collate utf8mb4_bin null`));
    }
    expect(pending).toMatch(/add `tries` int not null default 0/);
    expect(pending).toContain(
      "add `email_key` varbinary(1280) generated always as (nullif(`email`, '')) stored",
    );
    expect(pending).toContain("add unique `users_email_unique`(`email_key`)");
    await orm.schema.updateSchema();
    expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe("");

    const adapter = MikroOrmAdapter(orm);
    // The old user's address is now unique, and found through `email_key`.
    const oldUser = { id: userId, email: "old@example.com", emailVerified: null };
    expect(await adapter.getUserByEmail("old@example.com")).toEqual({
      ...oldUser,
      name: null,
      image: null,
    });
    await expect(adapter.createUser({ ...oldUser, id: crypto.randomUUID() })).rejects.toThrow(
      /createUser failed \(UniqueConstraintViolation/,
    );
    const account = await adapter.getAccount("42", "github");
    expect(account).toMatchObject({ userId, access_token: "old-access-token" });
    expect(account).not.toHaveProperty("passwordHash");
    const password = {
      userId,
      type: "password" as const,
      provider: "password",
      providerAccountId: userId,
      passwordHash: "$scrypt$N=32768,r=8,p=1$c2FsdA$aGFzaA",
    };
    await adapter.linkAccount(password);
    expect(await adapter.getAccount(userId, "password")).toMatchObject(password);

    const old = await adapter.getSessionAndUser("old-token");
    expect(Object.keys(old?.session ?? {}).sort()).toEqual([
      "expires",
      "id",
      "sessionToken",
      "userId",
    ]);
    expect(old?.session.expires.getTime()).toBe(expires.getTime());

    const key = { identifier: "old@example.com", token: "hash" };
    expect(await adapter.countVerificationTokenTry(key, 2)).toBe(1);
    expect(await adapter.countVerificationTokenTry(key, 2)).toBe(2);
    expect(await adapter.countVerificationTokenTry(key, 2)).toBeNull();

    const release = await adapter.lockAccount(
      { provider: "github", providerAccountId: "42" },
      60_000,
    );
    expect(release).not.toBeNull();
    expect(
      await adapter.lockAccount({ provider: "github", providerAccountId: "42" }, 60_000),
    ).toBeNull();
    await release?.();
  });
});
