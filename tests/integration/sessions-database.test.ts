/**
 * Database sessions people can see and end, through `Auth()` and the server API, on every real
 * store (pg-adapter on the server and PGlite, redis-adapter, mikro-orm-adapter on PostgreSQL and
 * SQLite), signed in through a real OpenID provider: the listing with its records, one session
 * ended by its public id, "sign out everywhere else", and revoke-all while 20 session checks run;
 * proving an address by link or code ends the sessions of whoever signed up with it unproven.
 */
import { randomUUID } from "node:crypto";
import { listSessions, revokeSession, revokeUserSessions } from "@gatehousejs/core";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, expect, test } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "../../packages/core/test/helpers.js";
import {
  SESSION_COOKIE,
  signInThrough,
  twoIdps,
} from "../../packages/core/test/support/oauth-flow.js";
import {
  type OidcServer,
  startOidcProvider,
} from "../../packages/core/test/support/oidc-server.js";
import { unprovenAddressWorld } from "../../packages/core/test/support/unproven-address.js";
import { allStores, type OpenStore, storeBlock } from "./stores.js";

const FILE = "sessions-database.test.ts";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op?.close());

function configFor(store: OpenStore, session: { updateAge?: number } = {}) {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter: store.adapter,
    session: { strategy: "database", ...session },
    providers: twoIdps(op, { allowDangerousEmailAccountLinking: false }),
  };
  return { config, logger };
}

/** Signs the provider's account `account` in, in a new jar. */
async function signedIn(config: AuthConfig, account: string): Promise<Jar> {
  const jar = new Jar();
  const response = await signInThrough(config, jar, "idp", { query: { login_hint: account } });
  expect(response.status).toBe(302);
  expect(jar.cookies.get(SESSION_COOKIE)).toBeTruthy();
  return jar;
}

async function userIdOf(store: OpenStore, account: string): Promise<string> {
  const user = await store.adapter.getUserByEmail?.(`${account}@example.com`);
  expect(user?.id).toBeTruthy();
  return user!.id;
}

/** GET /auth/session with exactly this cookie, in a jar of its own. */
async function replay(config: AuthConfig, cookie: string) {
  const jar = new Jar();
  jar.cookies.set(SESSION_COOKIE, cookie);
  const response = await send(config, jar, "/auth/session");
  expect(response.status).toBe(200);
  return (await response.json()) as { user?: { email?: string | null } } | null;
}

interface Listed {
  id: string;
  current: boolean;
  strategy: string;
}

async function ownSessions(config: AuthConfig, jar: Jar): Promise<Listed[]> {
  const response = await send(config, jar, "/auth/sessions");
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: Listed[] }).sessions;
}

const currentId = async (config: AuthConfig, jar: Jar) =>
  (await ownSessions(config, jar)).find((s) => s.current)?.id ?? "";

for (const kind of allStores) {
  await storeBlock(FILE, kind, (store) => {
    test("the user's sessions are listed with their records; another user's are not", async () => {
      const { config } = configFor(store());
      const [a, b] = [`list-a-${randomUUID()}`, `list-b-${randomUUID()}`];
      const jars = [
        await signedIn(config, a),
        await signedIn(config, a),
        await signedIn(config, a),
      ];
      await signedIn(config, b);
      const [userA, userB] = [await userIdOf(store(), a), await userIdOf(store(), b)];

      const listed = await listSessions(config, userA);
      expect(listed).toHaveLength(3);
      const tokens = jars.map((jar) => jar.cookies.get(SESSION_COOKIE));
      for (const s of listed) {
        expect(s).toMatchObject({ strategy: "database", provider: "idp", providerType: "oidc" });
        expect(s.createdAt).not.toBeNull();
        expect(tokens).not.toContain(s.id); // public ids, never the tokens
        expect(JSON.stringify(s)).not.toContain(tokens[0]);
      }
      expect(await listSessions(config, userB)).toHaveLength(1);

      const own = await ownSessions(config, jars[0]!);
      expect(own.map((s) => s.id).sort()).toEqual(listed.map((s) => s.id).sort());
      expect(own.filter((s) => s.current)).toHaveLength(1);
    });

    test("revokeSession ends one session by its public id; another user's id ends nothing", async () => {
      const { config } = configFor(store());
      const [a, b] = [`one-a-${randomUUID()}`, `one-b-${randomUUID()}`];
      const [kept, ended] = [await signedIn(config, a), await signedIn(config, a)];
      await signedIn(config, b);
      const [userA, userB] = [await userIdOf(store(), a), await userIdOf(store(), b)];
      const endedId = await currentId(config, ended);

      expect(await revokeSession(config, userB, endedId)).toBe(false);
      expect((await replay(config, ended.cookies.get(SESSION_COOKIE)!))?.user).toBeTruthy();
      expect(await revokeSession(config, userA, endedId)).toBe(true);
      expect(await replay(config, ended.cookies.get(SESSION_COOKIE)!)).toBeNull();
      expect((await replay(config, kept.cookies.get(SESSION_COOKIE)!))?.user).toBeTruthy();
      expect(await listSessions(config, userB)).toHaveLength(1);
    });

    test("POST /sessions/revoke {others: true} signs out everywhere but the caller", async () => {
      const { config } = configFor(store());
      const account = `others-${randomUUID()}`;
      const jars = [
        await signedIn(config, account),
        await signedIn(config, account),
        await signedIn(config, account),
      ];
      const csrf = await csrfToken(config, jars[0]!);
      const response = await send(config, jars[0]!, "/auth/sessions/revoke", {
        json: { others: true, csrfToken: csrf },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ revoked: 2 });
      const answers = await Promise.all(
        jars.map((jar) => replay(config, jar.cookies.get(SESSION_COOKIE)!)),
      );
      expect(answers.map((a) => a !== null)).toEqual([true, false, false]);
      expect(await listSessions(config, await userIdOf(store(), account))).toHaveLength(1);
    });

    for (const how of ["link", "code"] as const) {
      test(`proving an address by ${how} ends the sessions of whoever signed up with it`, async () => {
        const owner = `owner-${randomUUID()}@corp.example`;
        const w = unprovenAddressWorld({
          adapter: store().adapter,
          session: { strategy: "database" },
        });
        const user = await w.signUp(owner, "chosen-by-someone-else");
        const intruders = [
          await w.passwordSignIn(owner, "chosen-by-someone-else"),
          await w.passwordSignIn(owner, "chosen-by-someone-else"),
        ];
        for (const jar of intruders) expect(await w.signedInAs(jar)).toBe(owner);
        const { response, jar } =
          how === "link" ? await w.linkSignIn(owner) : await w.codeSignIn(owner);
        expect(response.headers.get("location")).not.toContain("error=");
        for (const intruder of intruders) expect(await w.signedInAs(intruder)).toBeNull();
        expect(await w.signedInAs(jar)).toBe(owner);
        expect(await listSessions(w.config, user.id)).toHaveLength(1);
      });
    }

    test("revoke-all while 20 session checks run leaves no session alive", async () => {
      // updateAge 0: every check writes the session, racing the deletion.
      const { config, logger } = configFor(store(), { updateAge: 0 });
      const account = `all-${randomUUID()}`;
      await signedIn(config, account); // creates the user before the parallel sign-ins
      const jars = await Promise.all(Array.from({ length: 19 }, () => signedIn(config, account)));
      const userId = await userIdOf(store(), account);
      expect(await listSessions(config, userId)).toHaveLength(20);
      const issued = jars.map((jar) => jar.cookies.get(SESSION_COOKIE)!);

      const [revoked, ...checks] = await Promise.all([
        revokeUserSessions(config, userId),
        ...jars.map((jar) => send(config, jar, "/auth/session")),
      ]);
      expect(revoked).toBe(20);
      for (const check of checks) expect(check.status).toBe(200);

      const answers = await Promise.all(issued.map((cookie) => replay(config, cookie)));
      expect(answers).toEqual(issued.map(() => null));
      expect(await listSessions(config, userId)).toEqual([]);
      expect(await store().adapter.listSessionsByUserId?.(userId)).toEqual([]);
      expect(logger.error).not.toHaveBeenCalled();
    });
  });
}
