/**
 * The adapter and the stores on PostgreSQL: a server through a node-postgres Pool (a fresh
 * schema, dropped afterwards) and PGlite.
 */

import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { DrizzleAdapter } from "../src/index.js";
import { openNodePostgres, openPglite } from "./support/databases.js";
import { postgresReachable } from "./support/servers.js";
import { allSuites } from "./support/suites.js";

allSuites(() => openNodePostgres(), { skip: !(await postgresReachable()) });
allSuites(() => openPglite());

describe.skipIf(!(await postgresReachable()))("the session check on node-postgres", () => {
  test("is a named statement, prepared once per connection", async () => {
    const h = openNodePostgres(1);
    await h.setup();
    try {
      const adapter = DrizzleAdapter(h.db);
      const user = await adapter.createUser({ id: randomUUID(), email: "", emailVerified: null });
      const expires = new Date(Date.now() + 60_000);
      await adapter.createSession({ sessionToken: "named-1", userId: user.id, expires });
      for (let i = 0; i < 3; i++) expect(await adapter.getSessionAndUser("named-1")).not.toBeNull();
      expect(await adapter.getSessionAndUser("named-2")).toBeNull();
      const rows = await h.query(
        "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'gatehouse_%'",
      );
      expect(rows.filter((r) => String(r.statement).includes("join"))).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
