/**
 * The adapter's capabilities (src/lib/capabilities.ts): which optional methods a configuration
 * can use, worked out once per resolved configuration, and the one fallback each documents.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import GitHub from "@gatehousejs/core/providers/github";
import { describe, expect, test } from "vitest";
import {
  accountOwnerId,
  type Capabilities,
  capabilitiesOf,
  capabilityMethods,
  keepsSessionMetadata,
  mayHoldOtherAccount,
  missingAdapterMethods,
} from "../src/lib/capabilities.js";
import { resolveConfig } from "../src/lib/config.js";
import { AdapterError } from "../src/lib/errors.js";
import type { AuthConfig } from "../src/lib/types/config.js";
import type { Adapter } from "../src/lib/types/models.js";
import { credentialsConfig } from "./helpers.js";

/** Every capability, in the order the module lists them. */
const everyCapability = [
  "getUser",
  "getUserByEmail",
  "getUserByAccount",
  "deleteUser",
  "getAccount",
  "listAccounts",
  "updateAccount",
  "lockAccount",
  "unlinkAccount",
  "getSessionAndUser",
  "updateSession",
  "deleteSession",
  "listSessions",
  "deleteSessions",
  "listAuthenticators",
  "deleteAuthenticator",
  "countVerificationTokenTry",
];

/** A JWT configuration with a Credentials provider: it needs no adapter method at all. */
function configured(adapter: Adapter | undefined, overrides: Partial<AuthConfig> = {}) {
  return resolveConfig(
    credentialsConfig({
      ...(adapter ? { adapter } : {}),
      session: { strategy: "jwt" },
      ...overrides,
    }),
  );
}

/** A MemoryAdapter without `method`. */
function without(method: keyof Adapter): Adapter {
  const adapter: Adapter = MemoryAdapter();
  delete adapter[method];
  return adapter;
}

const present = (can: Capabilities) =>
  Object.entries(can)
    .filter(([, fn]) => typeof fn === "function")
    .map(([name]) => name);

describe("the capabilities of an adapter", () => {
  test("a MemoryAdapter has every capability", () => {
    expect(present(capabilitiesOf(configured(MemoryAdapter())))).toEqual(everyCapability);
  });

  test("without an adapter there is none", () => {
    expect(present(capabilitiesOf(configured(undefined)))).toEqual([]);
  });

  test.each(Object.entries(capabilityMethods))(
    "a MemoryAdapter without the method of %s has every capability but that one",
    (capability, method) => {
      const can = capabilitiesOf(configured(without(method)));
      expect(can[capability as keyof Capabilities]).toBeUndefined();
      expect(present(can)).toEqual(everyCapability.filter((c) => c !== capability));
    },
  );

  test("a capability calls the configuration's adapter: errors come out as AdapterError", async () => {
    const adapter = MemoryAdapter();
    const user = await adapter.createUser({
      id: "u1",
      email: "a@example.com",
      emailVerified: null,
    });
    const expires = new Date(Date.now() + 60_000);
    await adapter.createSession({ sessionToken: "t1", userId: user.id, expires });
    const can = capabilitiesOf(configured(adapter));
    expect((await can.listSessions!(user.id)).map((s) => s.sessionToken)).toEqual(["t1"]);

    const failing = { ...MemoryAdapter(), getUser: () => Promise.reject(new Error("down")) };
    await expect(capabilitiesOf(configured(failing)).getUser!("u1")).rejects.toBeInstanceOf(
      AdapterError,
    );
  });

  test("they are worked out once per configuration", () => {
    const config = configured(MemoryAdapter());
    expect(capabilitiesOf(config)).toBe(capabilitiesOf(config));
    expect(capabilitiesOf(configured(MemoryAdapter()))).not.toBe(capabilitiesOf(config));
    expect(Object.isFrozen(capabilitiesOf(config))).toBe(true);
  });
});

describe("the required core", () => {
  const credentials = credentialsConfig().providers;
  const github = GitHub({ clientId: "id", clientSecret: "secret" });

  test("a JWT configuration with a Credentials provider needs nothing", () => {
    expect(missingAdapterMethods({}, credentials as never, "jwt")).toEqual([]);
  });

  test("database sessions need the session methods, and getUser with Credentials; sorted", () => {
    expect(missingAdapterMethods({}, credentials as never, "database")).toEqual([
      "createSession",
      "deleteSession",
      "getSessionAndUser",
      "getUser",
      "updateSession",
    ]);
  });

  test("an OAuth provider needs the user and account methods", () => {
    expect(missingAdapterMethods({}, [github] as never, "jwt")).toEqual([
      "createUser",
      "getUser",
      "getUserByAccount",
      "getUserByEmail",
      "linkAccount",
    ]);
  });

  test("an adapter that has them lacks nothing; an optional method is never required", () => {
    expect(missingAdapterMethods(MemoryAdapter(), [github] as never, "database")).toEqual([]);
    const lean = without("listSessionsByUserId");
    expect(missingAdapterMethods(lean, [github] as never, "database")).toEqual([]);
  });
});

describe("the fallbacks", () => {
  const github = GitHub({ clientId: "id", clientSecret: "secret" });
  const isEmail = (a: { type: string }) => a.type === "email";

  async function userWith(adapter: Adapter & ReturnType<typeof MemoryAdapter>, types: string[]) {
    const user = await adapter.createUser({
      id: "u1",
      email: "a@example.com",
      emailVerified: null,
    });
    for (const [i, type] of types.entries()) {
      await adapter.linkAccount({
        userId: user.id,
        provider: type === "email" ? "email" : "github",
        providerAccountId: `acct-${i}`,
        type: type as "email" | "oauth",
      });
    }
    return user;
  }

  test("with listAccounts, the user's own accounts say whether they hold another", async () => {
    const only = MemoryAdapter();
    await userWith(only, ["email"]);
    expect(await mayHoldOtherAccount(configured(only), "u1", isEmail)).toBe(false);

    const more = MemoryAdapter();
    await userWith(more, ["email", "oauth"]);
    expect(await mayHoldOtherAccount(configured(more), "u1", isEmail)).toBe(true);
  });

  test("without listAccounts, any OAuth provider of the configuration counts as one", async () => {
    const adapter = without("listAccountsByUserId");
    expect(await mayHoldOtherAccount(configured(adapter), "u1", isEmail)).toBe(false);
    const withOAuth = configured(adapter, {
      providers: [...credentialsConfig().providers, github],
    });
    expect(await mayHoldOtherAccount(withOAuth, "u1", isEmail)).toBe(true);
  });

  test("a listing that fails throws rather than answering", async () => {
    const adapter = { listAccountsByUserId: () => Promise.reject(new Error("down")) };
    await expect(mayHoldOtherAccount(configured(adapter), "u1", isEmail)).rejects.toBeInstanceOf(
      AdapterError,
    );
  });

  test("an account's user: its stored owner, or the provider-scoped id without an adapter", async () => {
    const adapter = MemoryAdapter();
    await userWith(adapter, ["oauth"]);
    const key = { provider: "github", providerAccountId: "acct-0" };
    expect(await accountOwnerId(configured(adapter), key)).toBe("u1");
    const unknown = { provider: "github", providerAccountId: "nobody" };
    expect(await accountOwnerId(configured(adapter), unknown)).toBeUndefined();
    expect(await accountOwnerId(configured(undefined), key)).toBe("github:acct-0");
  });

  test("session metadata is kept by adapters that list sessions", () => {
    expect(keepsSessionMetadata(configured(MemoryAdapter()))).toBe(true);
    expect(keepsSessionMetadata(configured(without("listSessionsByUserId")))).toBe(false);
    expect(keepsSessionMetadata(configured(undefined))).toBe(false);
  });
});
