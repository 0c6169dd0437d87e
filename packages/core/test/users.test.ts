/**
 * The linking table, row by row, against the memory adapter. `resolveUser` is internal; these
 * tests drive it with real parsed requests so that "signed in" means a real session cookie.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { OAuthAccountNotLinked } from "@gatehousejs/core/errors";
import { encode } from "@gatehousejs/core/jwt";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { resolveConfig } from "../src/lib/config.js";
import { Context } from "../src/lib/context.js";
import { parseRequest } from "../src/lib/request.js";
import { type ResolveParams, resolveUser } from "../src/lib/users.js";
import { ORIGIN, recordingLogger, SECRET } from "./helpers.js";

const acme = {
  id: "acme",
  name: "Acme",
  type: "oauth",
  authorization: "https://a/x",
  token: "https://a/t",
  userinfo: "https://a/u",
  clientId: "acme-client",
} as const;

function setup(strategy: "jwt" | "database") {
  const adapter = MemoryAdapter();
  const events = { createUser: vi.fn(), linkAccount: vi.fn() };
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
    providers: [acme],
    events,
    logger: recordingLogger(),
  };
  async function context(cookie?: string) {
    const headers = cookie ? { cookie } : undefined;
    const req = await parseRequest(
      new Request(`${ORIGIN}/auth/callback/acme`, { headers }),
      "/auth",
    );
    return new Context(req, resolveConfig(config));
  }
  async function signedInAs(userId: string) {
    if (strategy === "database") {
      const s = await adapter.createSession!({
        sessionToken: crypto.randomUUID(),
        userId,
        expires: new Date(Date.now() + 60_000),
      });
      return `authjs.session-token=${s.sessionToken}`;
    }
    return `authjs.session-token=${await encode({ token: { sub: userId }, secret: SECRET, salt: "authjs.session-token" })}`;
  }
  return { adapter, events, context, signedInAs };
}

const params = (over: Partial<ResolveParams> = {}): ResolveParams => ({
  user: { name: "Pat", email: "pat@example.com" },
  account: { provider: "acme", providerAccountId: "acme-1", type: "oauth", access_token: "at" },
  notLinked: (m) => new OAuthAccountNotLinked(m),
  ...over,
});

async function makeUser(
  adapter: ReturnType<typeof MemoryAdapter>,
  email = "pat@example.com",
  emailVerified: Date | null = null,
) {
  return adapter.createUser!({
    id: crypto.randomUUID(),
    email,
    emailVerified,
    name: "Existing",
  });
}

describe.each(["jwt", "database"] as const)("account linking (%s sessions)", (strategy) => {
  test("known account, signed in as its owner: keeps the user, writes nothing", async () => {
    const { adapter, context, signedInAs, events } = setup(strategy);
    const owner = await makeUser(adapter);
    await adapter.linkAccount!({ ...params().account, userId: owner.id });
    const result = await resolveUser(await context(await signedInAs(owner.id)), params());
    expect(result).toEqual({ user: owner, isNewUser: false });
    expect(events.linkAccount).not.toHaveBeenCalled();
  });

  test("known account, signed in as someone else: OAuthAccountNotLinked", async () => {
    const { adapter, context, signedInAs } = setup(strategy);
    const owner = await makeUser(adapter);
    const other = await makeUser(adapter, "other@example.com");
    await adapter.linkAccount!({ ...params().account, userId: owner.id });
    await expect(
      resolveUser(await context(await signedInAs(other.id)), params()),
    ).rejects.toBeInstanceOf(OAuthAccountNotLinked);
  });

  test("known account, not signed in: signs in as the owner", async () => {
    const { adapter, context } = setup(strategy);
    const owner = await makeUser(adapter);
    await adapter.linkAccount!({ ...params().account, userId: owner.id });
    expect(await resolveUser(await context(), params())).toEqual({ user: owner, isNewUser: false });
  });

  test("unknown account, signed in: links it to the signed-in user and fires linkAccount", async () => {
    const { adapter, context, signedInAs, events } = setup(strategy);
    const me = await makeUser(adapter, "me@example.com");
    const result = await resolveUser(await context(await signedInAs(me.id)), params());
    expect(result).toEqual({ user: me, isNewUser: false });
    expect(
      await adapter.getUserByAccount!({ provider: "acme", providerAccountId: "acme-1" }),
    ).toEqual(me);
    expect(events.linkAccount).toHaveBeenCalledWith(
      expect.objectContaining({
        user: me,
        account: expect.objectContaining({ userId: me.id, access_token: "at" }),
      }),
    );
  });

  test("unknown account, not signed in, email taken: refused without allowDangerousEmailAccountLinking", async () => {
    const { adapter, context } = setup(strategy);
    await makeUser(adapter);
    await expect(resolveUser(await context(), params())).rejects.toMatchObject({
      type: "OAuthAccountNotLinked",
      kind: "signIn",
    });
    expect(
      await adapter.getUserByAccount!({ provider: "acme", providerAccountId: "acme-1" }),
    ).toBeNull();
  });

  test("unknown account, not signed in, email proven by a user: linked with allowDangerousEmailAccountLinking", async () => {
    const { adapter, context } = setup(strategy);
    const existing = await makeUser(adapter, "pat@example.com", new Date());
    const result = await resolveUser(
      await context(),
      params({ allowDangerousEmailAccountLinking: true }),
    );
    expect(result).toEqual({ user: existing, isNewUser: false });
  });

  test("unknown account, not signed in, email held unproven: refused even with allowDangerousEmailAccountLinking", async () => {
    const { adapter, context } = setup(strategy);
    await makeUser(adapter);
    await expect(
      resolveUser(await context(), params({ allowDangerousEmailAccountLinking: true })),
    ).rejects.toMatchObject({ type: "OAuthAccountNotLinked", message: /never proved/ });
    expect(
      await adapter.getUserByAccount!({ provider: "acme", providerAccountId: "acme-1" }),
    ).toBeNull();
  });

  test("unknown account, not signed in, new email: creates the user (emailVerified null), links, new user", async () => {
    const { adapter, context, events } = setup(strategy);
    const result = await resolveUser(await context(), params());
    expect(result.isNewUser).toBe(true);
    expect(result.user).toMatchObject({
      name: "Pat",
      email: "pat@example.com",
      emailVerified: null,
    });
    expect(await adapter.getUser!(result.user.id)).toEqual(result.user);
    expect(
      await adapter.getUserByAccount!({ provider: "acme", providerAccountId: "acme-1" }),
    ).toEqual(result.user);
    expect(events.createUser).toHaveBeenCalledWith({ user: result.user });
    expect(events.linkAccount).toHaveBeenCalledTimes(1);
  });

  test("unknown account without an email: creates the user with an empty email", async () => {
    const { context } = setup(strategy);
    const first = await resolveUser(await context(), params({ user: { name: "No Mail" } }));
    const second = await resolveUser(
      await context(),
      params({
        user: { name: "Also none" },
        account: { ...params().account, providerAccountId: "acme-2" },
      }),
    );
    expect(first.user.email).toBe("");
    expect(second.user.id).not.toBe(first.user.id);
  });

  test("a stale session cookie counts as not signed in", async () => {
    const { adapter, context } = setup(strategy);
    const owner = await makeUser(adapter);
    await adapter.linkAccount!({ ...params().account, userId: owner.id });
    const result = await resolveUser(await context("authjs.session-token=garbage"), params());
    expect(result.user).toEqual(owner);
  });
});

describe("the sign-in's claim on an address", () => {
  const cases: [string, Partial<ResolveParams>][] = [
    ["email_verified: false", { profile: { email_verified: false } }],
    // Some userinfo endpoints send the claim as a string, outside the Profile type.
    ['email_verified: "false"', { profile: { email_verified: "false" as unknown as boolean } }],
    ["an email that is not an address", { user: { name: "Pat", email: "pat" } }],
    ["a claim that is not from the email field", { claim: { address: null, verified: false } }],
  ];

  test.each(cases)("%s is never looked up, linked or stored", async (_name, over) => {
    const { adapter, context } = setup("database");
    const existing = await makeUser(adapter, over.user?.email ?? "pat@example.com", new Date());
    const result = await resolveUser(
      await context(),
      params({ ...over, allowDangerousEmailAccountLinking: true }),
    );
    expect(result.isNewUser).toBe(true);
    expect(result.user.id).not.toBe(existing.id);
    expect(result.user).toMatchObject({ email: "", emailVerified: null });
  });

  test("email_verified: true makes the created user's address proven", async () => {
    const { context } = setup("database");
    const before = Date.now();
    const result = await resolveUser(
      await context(),
      params({ profile: { email_verified: true } }),
    );
    expect(result.user.email).toBe("pat@example.com");
    expect(result.user.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before);
  });

  test("an address that only normalises to one (full-width letters) is not that address", async () => {
    const { adapter, context } = setup("database");
    const existing = await makeUser(adapter, "pat@example.com", new Date());
    const result = await resolveUser(
      await context(),
      params({
        user: { email: "\uff50at@example.com" },
        allowDangerousEmailAccountLinking: true,
      }),
    );
    expect(result.user.id).not.toBe(existing.id);
    expect(result.user.email).toBe("");
  });
});

describe("races and failures", () => {
  test("20 concurrent first sign-ins of one account leave one user and one account", async () => {
    const { adapter, context } = setup("database");
    const results = await Promise.all(
      Array.from({ length: 20 }, async () => resolveUser(await context(), params())),
    );
    const ids = new Set(results.map((r) => r.user.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.isNewUser)).toHaveLength(1);
    expect(adapter.rows.count().users).toBe(1);
    expect(adapter.rows.count().accounts).toBe(1);
  });

  test("with dangerous email linking, two concurrent first sign-ins of one account both succeed", async () => {
    const { adapter, context } = setup("database");
    const existing = await makeUser(adapter, "pat@example.com", new Date());
    const link = adapter.linkAccount!;
    // A slow store: both sign-ins find the user by email before either link lands.
    adapter.linkAccount = async (account) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return link(account);
    };
    const results = await Promise.all(
      [1, 2].map(async () =>
        resolveUser(await context(), params({ allowDangerousEmailAccountLinking: true })),
      ),
    );
    expect(results.map((r) => r.user.id)).toEqual([existing.id, existing.id]);
    expect(adapter.rows.count().accounts).toBe(1);
  });

  test("a first sign-in whose new user gets the account linked by a racing sign-in keeps it", async () => {
    // A creates the user; before A's link lands, B (linking by address) finds that user and
    // links the account to it; A's own link then fails as a duplicate. The user is A's and B's.
    const { adapter, context } = setup("database");
    const link = adapter.linkAccount!;
    let releaseA!: () => void;
    const aMayLink = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    let aCreated!: () => void;
    const userCreated = new Promise<void>((resolve) => {
      aCreated = resolve;
    });
    const create = adapter.createUser!;
    adapter.createUser = async (user) => {
      const created = await create(user);
      aCreated();
      return created;
    };
    let calls = 0;
    adapter.linkAccount = async (account) => {
      calls += 1;
      if (calls === 1) await aMayLink;
      return link(account);
    };
    const verified = { address: "pat@example.com", verified: true };
    const a = resolveUser(await context(), params({ claim: verified }));
    await userCreated;
    const b = await resolveUser(
      await context(),
      params({ claim: verified, allowDangerousEmailAccountLinking: true }),
    );
    releaseA();
    const resultA = await a;
    expect(resultA.user.id).toBe(b.user.id);
    expect(resultA.isNewUser).toBe(true);
    expect(adapter.rows.count().users).toBe(1);
    expect(adapter.rows.count().accounts).toBe(1);
    expect(
      await adapter.getUserByAccount!({ provider: "acme", providerAccountId: "acme-1" }),
    ).toMatchObject({
      id: b.user.id,
    });
  });

  test("linkAccount failing after createUser leaves no orphan user behind", async () => {
    const { adapter, context } = setup("database");
    const failing = adapter.linkAccount!;
    adapter.linkAccount = async () => {
      throw new Error("disk full");
    };
    await expect(resolveUser(await context(), params())).rejects.toMatchObject({
      type: "AdapterError",
    });
    adapter.linkAccount = failing;
    expect(adapter.rows.count().users).toBe(0);
  });
});

describe("a repeat sign-in of a linked account", () => {
  test("stores the new tokens, keeps a refresh token it did not bring, and clears a refresh mark", async () => {
    const adapter = MemoryAdapter();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      providers: [acme],
      logger: recordingLogger(),
    };
    const context = async () =>
      new Context(
        await parseRequest(new Request(`${ORIGIN}/auth/callback/acme`), "/auth"),
        resolveConfig(config),
      );
    const first = await resolveUser(
      await context(),
      params({
        account: {
          provider: "acme",
          providerAccountId: "acme-1",
          type: "oauth",
          access_token: "old-at",
          refresh_token: "rt-1",
        },
      }),
    );
    await adapter.updateAccount!({
      provider: "acme",
      providerAccountId: "acme-1",
      error: "RefreshTokenError",
    });
    const again = await resolveUser(
      await context(),
      params({
        account: {
          provider: "acme",
          providerAccountId: "acme-1",
          type: "oauth",
          access_token: "new-at",
        },
      }),
    );
    expect(again.user.id).toBe(first.user.id);
    const stored = await adapter.getAccount!("acme-1", "acme");
    expect(stored).toMatchObject({ access_token: "new-at", refresh_token: "rt-1" });
    expect(stored?.error ?? null).toBeNull();
    // A new access token without a lifetime does not keep the old one's expiry.
    expect(stored?.expires_at ?? null).toBeNull();
  });

  test("under the database strategy it clears the mark of the user's other sessions", async () => {
    const adapter = MemoryAdapter();
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      session: { strategy: "database" },
      providers: [acme],
      logger: recordingLogger(),
    };
    const context = async () =>
      new Context(
        await parseRequest(new Request(`${ORIGIN}/auth/callback/acme`), "/auth"),
        resolveConfig(config),
      );
    const account = {
      provider: "acme",
      providerAccountId: "acme-2",
      type: "oauth" as const,
      access_token: "at-1",
      refresh_token: "rt-1",
      expires_at: 1,
    };
    const { user } = await resolveUser(await context(), params({ account }));
    await adapter.createSession({
      sessionToken: "elsewhere",
      userId: user.id,
      expires: new Date(Date.now() + 60_000),
      error: "RefreshTokenError",
    });
    await adapter.updateAccount!({ ...account, error: "RefreshTokenError" });
    await resolveUser(
      await context(),
      params({ account: { ...account, access_token: "at-2", expires_at: 2 } }),
    );
    expect((await adapter.getSessionAndUser("elsewhere"))?.session.error ?? null).toBeNull();
    expect(await adapter.getAccount!("acme-2", "acme")).toMatchObject({
      access_token: "at-2",
      expires_at: 2,
    });
  });
});
