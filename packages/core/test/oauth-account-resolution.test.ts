/**
 * How an OAuth sign-in finds or makes its user when the store is slow, racing or failing, and
 * what it stores about the address. Driven through real OpenID Connect sign-ins against a memory
 * adapter wrapped to play a concurrent sign-in of the same account at the worst moment.
 */

import type { Adapter, AdapterAccount, AdapterUser } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET } from "./helpers.js";
import { loggedFailures } from "./support/failures.js";
import {
  expectNoSessionCookie,
  sessionOf,
  signInError,
  signInThrough,
  twoIdps,
} from "./support/oauth-flow.js";
import { defaultClaims, type OidcServer, startOidcProvider } from "./support/oidc-server.js";

/** `str-true` / `str-false` send email_verified as a string; `silent` sends none. */
function claims(account: string): Record<string, unknown> {
  const base = { email: `${account}@example.com`, name: account };
  switch (account) {
    case "str-true":
      return { ...base, email_verified: "true" };
    case "str-false":
      return { ...base, email_verified: "false" };
    case "bool-false":
      return { ...base, email_verified: false };
    case "silent":
      return base;
    default:
      return defaultClaims(account);
  }
}

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider({ claims });
});
afterAll(() => op.close());

const as = (account: string) => ({ query: { login_hint: account } });
const EMAIL = "user-1@example.com";
const CONFIGURATION = `${ORIGIN}/auth/error?error=Configuration`;
const uniqueViolation = () => new Error("duplicate key value violates unique constraint");

/** The user another sign-in of the same account created (and, when told, linked) meanwhile. */
async function winnerIn(memory: ReturnType<typeof MemoryAdapter>, link: boolean, email = EMAIL) {
  const winner = await memory.createUser!({
    id: "winner",
    email,
    emailVerified: new Date(),
    name: "Winner",
  });
  if (link) {
    await memory.linkAccount!({
      userId: winner.id,
      provider: "idp",
      providerAccountId: "user-1",
      type: "oidc",
    });
  }
  return winner;
}

function setup(
  wrap: (memory: ReturnType<typeof MemoryAdapter>) => Partial<Adapter>,
  idp2: Parameters<typeof twoIdps>[1] = {},
) {
  const memory = MemoryAdapter();
  const logger = recordingLogger();
  const signIn = vi.fn();
  const createUser = vi.fn();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    session: { strategy: "database" },
    events: { signIn, createUser },
    providers: twoIdps(op, idp2),
    adapter: { ...memory, ...wrap(memory) },
  };
  return { memory, config, logger, signIn, createUser };
}

describe("a first sign-in racing another of the same account", () => {
  test("createUser loses (the other created the user and links a moment later): signed in as the winner", async () => {
    let lookups = 0;
    const { memory, config, signIn, createUser } = setup((memory) => ({
      async createUser() {
        await winnerIn(memory, false);
        throw uniqueViolation();
      },
      async getUserByAccount(key) {
        lookups++;
        // The winner links its account only after the loser's first look after failing.
        if (lookups === 3) {
          await memory.linkAccount!({ ...key, userId: "winner", type: "oidc" });
          return null;
        }
        return memory.getUserByAccount!(key);
      },
    }));
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(config, jar))?.user?.name).toBe("Winner");
    expect(memory.rows.count()).toMatchObject({ users: 1, accounts: 1 });
    expect(createUser).not.toHaveBeenCalled();
    expect(signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: false }));
  });

  test("createUser fails and nobody else signed in: the Configuration page, nothing stored", async () => {
    const { memory, config, logger } = setup(() => ({
      async createUser(): Promise<AdapterUser> {
        throw new Error("the database is unavailable");
      },
    }));
    const response = await signInThrough(config, new Jar(), "idp");
    expect(response.headers.get("location")).toBe(CONFIGURATION);
    expectNoSessionCookie(response);
    expect(memory.rows.count()).toMatchObject({ users: 0, accounts: 0 });
    expect(loggedFailures(logger)).toMatchObject([{ level: "error", type: "AdapterError" }]);
  });

  describe.each([
    ["with deleteUser", true],
    ["without deleteUser", false],
  ])("linkAccount loses after createUser (%s)", (_, canDelete) => {
    test("the half-made user is taken back out and the winner signs in", async () => {
      const { memory, config, logger, signIn, createUser } = setup((memory) => ({
        async linkAccount(account: AdapterAccount) {
          // The winner's user row differs from this one's (say, an address changed meanwhile).
          await winnerIn(memory, true, "winner@example.com");
          if (canDelete) expect(memory.rows.user(account.userId)).not.toBeNull();
          throw uniqueViolation();
        },
        ...(canDelete ? {} : { deleteUser: undefined }),
      }));
      const jar = new Jar();
      const response = await signInThrough(config, jar, "idp");
      expect(response.headers.get("location")).toBe(ORIGIN);
      expect((await sessionOf(config, jar))?.user?.name).toBe("Winner");
      expect(memory.rows.count()).toMatchObject({ users: canDelete ? 1 : 2, accounts: 1 });
      expect(logger.error).not.toHaveBeenCalled();
      // Not a new user: the user this sign-in made is gone, and no createUser event fired.
      expect(signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: false }));
      expect(createUser).not.toHaveBeenCalled();
    });
  });

  test("linkAccount fails after createUser, and so does deleteUser: both are logged", async () => {
    const { memory, config, logger } = setup(() => ({
      async linkAccount(): Promise<AdapterAccount> {
        throw new Error("the database is unavailable");
      },
      async deleteUser(): Promise<AdapterUser> {
        throw new Error("still unavailable");
      },
    }));
    const response = await signInThrough(config, new Jar(), "idp");
    expect(response.headers.get("location")).toBe(CONFIGURATION);
    expect(memory.rows.count()).toMatchObject({ users: 1, accounts: 0 });
    const logged = loggedFailures(logger);
    expect(logged).toHaveLength(2);
    expect(logged.map((l) => l.level)).toEqual(["error", "error"]);
  });

  test("the address is taken by the user the other sign-in of this account just made: signed in as it", async () => {
    let lookups = 0;
    const { memory, config, signIn } = setup((memory) => ({
      async getUserByAccount(key) {
        lookups++;
        if (lookups === 1) {
          // Not linked yet when this sign-in first looks; linked right after.
          await winnerIn(memory, true);
          return null;
        }
        return memory.getUserByAccount!(key);
      },
    }));
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(config, jar))?.user?.name).toBe("Winner");
    expect(memory.rows.count()).toMatchObject({ users: 1, accounts: 1 });
    expect(signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: false }));
  });
});

test("a refusal waits for a concurrent sign-in that links the account a few milliseconds later", async () => {
  let lookups = 0;
  const { config, signIn } = setup((memory) => ({
    async getUserByAccount(key) {
      lookups++;
      if (lookups === 1) {
        // The other sign-in has made its user and links the account on its next turn of the
        // event loop, later than any promise chain but before the first pause of the refusal.
        await winnerIn(memory, false);
        setTimeout(() => void memory.linkAccount!({ ...key, userId: "winner", type: "oidc" }), 1);
        return null;
      }
      return memory.getUserByAccount!(key);
    },
  }));
  const jar = new Jar();
  const response = await signInThrough(config, jar, "idp");
  expect(response.headers.get("location")).toBe(ORIGIN);
  expect((await sessionOf(config, jar))?.user?.name).toBe("Winner");
  expect(signIn).toHaveBeenCalledWith(expect.objectContaining({ isNewUser: false }));
});

describe("refusals say why", () => {
  test("an address another account uses, without dangerous linking", async () => {
    const { config, logger } = setup(() => ({}));
    await signInThrough(config, new Jar(), "idp");
    const response = await signInThrough(config, new Jar(), "idp2");
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expect(loggedFailures(logger)).toEqual([
      {
        level: "warn",
        type: "OAuthAccountNotLinked",
        message: "Another account already uses this email address",
      },
    ]);
  });

  test("with dangerous linking, an owner who never proved the address", async () => {
    const { memory, config, logger } = setup(() => ({}), {
      allowDangerousEmailAccountLinking: true,
    });
    await memory.createUser!({ id: "unproven", email: EMAIL, emailVerified: null });
    const response = await signInThrough(config, new Jar(), "idp2");
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expect(loggedFailures(logger)).toEqual([
      {
        level: "warn",
        type: "OAuthAccountNotLinked",
        message: "Another account already uses this email address, and its owner never proved it",
      },
    ]);
  });
});

describe("what a new user's row says about the address", () => {
  test.each([
    ["user-1", true, true],
    ["str-true", true, true],
    ["silent", true, false],
    ["str-false", false, false],
    ["bool-false", false, false],
  ])("%s: address stored %s, proven %s", async (account, stored, proven) => {
    const { memory, config } = setup(() => ({}));
    const response = await signInThrough(config, new Jar(), "idp", as(account));
    expect(response.headers.get("location")).toBe(ORIGIN);
    const user = memory.rows.user(
      memory.rows.account({ provider: "idp", providerAccountId: account })!.userId,
    )!;
    expect(user.email).toBe(stored ? `${account}@example.com` : "");
    expect(user.emailVerified instanceof Date).toBe(proven);
  });
});

test("a returning user's sign-in looks the account up once", async () => {
  const lookups = vi.fn();
  const { config } = setup((memory) => ({
    getUserByAccount(key) {
      lookups(key);
      return memory.getUserByAccount!(key);
    },
  }));
  await signInThrough(config, new Jar(), "idp");
  lookups.mockClear();
  const response = await signInThrough(config, new Jar(), "idp");
  expect(response.headers.get("location")).toBe(ORIGIN);
  expect(lookups).toHaveBeenCalledTimes(1);
});
