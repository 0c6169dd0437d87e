/**
 * The schema fragments this package ships (prisma/<dialect>.prisma) are exactly what
 * `gatehouse generate --adapter prisma` writes for an app using every feature: one model, shared
 * by the CLI and the adapter, which the dialect test files generate their clients from.
 *
 * After a change of the CLI's model, rewrite the fragments with
 * `UPDATE_PRISMA_FRAGMENTS=1 npx vitest run packages/prisma-adapter/test/fragments.test.ts`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { prismaSchema } from "@gatehousejs/cli/schema";
import { describe, expect, test } from "vitest";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "prisma");

describe("the shipped Prisma schema fragments", () => {
  for (const dialect of ["postgresql", "mysql", "sqlite"] as const) {
    test(`prisma/${dialect}.prisma is gatehouse generate's output for ${dialect}, every feature`, async () => {
      const file = join(dir, `${dialect}.prisma`);
      const expected = prismaSchema(dialect);
      if (process.env.UPDATE_PRISMA_FRAGMENTS === "1") await writeFile(file, expected);
      expect(await readFile(file, "utf8")).toBe(expected);
    });
  }

  test("every model the adapter and the stores use is in each fragment, mapped to its table", async () => {
    const models = {
      User: "users",
      Account: "accounts",
      AccountLock: "account_locks",
      Session: "sessions",
      VerificationToken: "verification_tokens",
      Authenticator: "authenticators",
      RevokedSession: "revoked_sessions",
      RevocationEpoch: "revocation_epochs",
      JwtSession: "jwt_sessions",
      SecurityEvent: "security_events",
      RateLimit: "rate_limits",
    };
    for (const dialect of ["postgresql", "mysql", "sqlite"]) {
      const text = await readFile(join(dir, `${dialect}.prisma`), "utf8");
      for (const [model, table] of Object.entries(models)) {
        const block = text.match(new RegExp(`model ${model} \\{([^}]*)\\}`))?.[1];
        expect(block, `model ${model} in ${dialect}.prisma`).toBeDefined();
        expect(block).toContain(`@@map("${table}")`);
      }
    }
  });
});
