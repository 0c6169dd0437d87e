import { runAdapterTests } from "@gatehousejs/adapter-test";
import { MikroORM } from "@mikro-orm/sqlite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { gatehouseEntities, MikroOrmAdapter } from "../src/index.js";
import { sqlReaders } from "./support/databases.js";
import { providerSidCases, updateAccountCases } from "./support/tokens.js";

// In-memory SQLite through @mikro-orm/sqlite (the `sqlite3` native module): nothing to start.
const orm = await MikroORM.init({ dbName: ":memory:", entities: [...gatehouseEntities.list] });
const adapter = MikroOrmAdapter(() => orm);

describe("MikroOrmAdapter on SQLite", () => {
  beforeAll(async () => {
    await orm.schema.createSchema();
  });
  afterAll(async () => {
    await orm.close(true);
  });

  runAdapterTests({
    name: "mikro-orm (SQLite)",
    adapter,
    db: sqlReaders(orm, (table) => `"${table}"`),
  });

  updateAccountCases(() => adapter);
  providerSidCases(() => adapter);

  test("foreign keys are enforced: an account of an unknown user is rejected", async () => {
    const account = {
      userId: crypto.randomUUID(),
      type: "oauth" as const,
      provider: "gatehouse-test",
      providerAccountId: crypto.randomUUID(),
    };
    await expect(adapter.linkAccount(account)).rejects.toThrow(/linkAccount failed/);
    expect(await adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
  });

  test("users without an email do not collide; real addresses are unique", async () => {
    const nobody = () => ({ id: crypto.randomUUID(), email: "", emailVerified: null });
    await adapter.createUser(nobody());
    await adapter.createUser(nobody());
    expect(await adapter.getUserByEmail("")).toBeNull();
    const email = `unique-${crypto.randomUUID()}@example.com`;
    await adapter.createUser({ ...nobody(), email });
    await expect(adapter.createUser({ ...nobody(), email })).rejects.toThrow(
      /createUser failed \(UniqueConstraintViolation/,
    );
  });

  test("the schema is what updateSchema would create: no pending changes", async () => {
    expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe("");
  });
});
