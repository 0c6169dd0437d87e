/**
 * An older schema: the tables as `gatehouse migrate` creates them, then without every column added
 * after its table first shipped (`ALTER TABLE … DROP COLUMN`), while the client still has the
 * fields. Sign-in and the session check go on, through `Auth()` and the adapter alike; each
 * missing column is warned about once, no value is ever logged, and what cannot be done without
 * its column fails naming it. A required column missing is still an error.
 */

import { TABLES } from "@gatehousejs/cli/schema";
import { Auth, type AuthConfig } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  PrismaAdapter,
  type PrismaAdapterModels,
  type PrismaClientLike,
  PrismaRevocationStore,
} from "../../src/index.js";
import { LATE_FIELDS } from "../../src/tolerance.js";
import type { Opened } from "./databases.js";

const hex = () => crypto.randomUUID().replaceAll("-", "");
const DAY = 86_400_000;

/** The columns the CLI's model marks as added later, by table. */
function lateColumns(): Map<string, string[]> {
  const late = new Map<string, string[]>();
  for (const table of TABLES) {
    const names = table.columns.filter((c) => c.addedLater).map((c) => c.name);
    if (names.length > 0) late.set(table.name, names);
  }
  return late;
}

/** A logger that keeps what it is given. */
function recorder() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (message: string) => void warnings.push(message) } };
}

/** The warnings that name `table`'s column `column`. */
const naming = (warnings: string[], table: string, column: string) =>
  warnings.filter((w) => w.includes(`"${table}"`) && w.includes(`"${column}"`));

/** A cookie jar for requests through `Auth()`. */
class Browser {
  cookies = new Map<string, string>();
  constructor(readonly config: AuthConfig) {}
  async send(path: string, form?: Record<string, string>): Promise<Response> {
    const headers = new Headers();
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([n, v]) => `${n}=${v}`).join("; "));
    }
    if (form) headers.set("content-type", "application/x-www-form-urlencoded");
    const response = await Auth(
      new Request(`http://localhost:3000${path}`, {
        method: form ? "POST" : "GET",
        headers,
        body: form ? new URLSearchParams(form).toString() : undefined,
      }),
      this.config,
    );
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === "" || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

/** Registers the older-schema checks on `db` (already open, with every table), and closes it. */
export function olderSchemaSuite(name: string, db: Opened): void {
  describe(`an older schema, optional columns missing: ${name}`, () => {
    const client = db.prisma as unknown as PrismaClientLike<PrismaAdapterModels>;
    const table = (t: string) =>
      db.dialect === "postgresql"
        ? `"${db.options.schema}"."${t}"`
        : db.dialect === "mysql"
          ? `\`${t}\``
          : `"${t}"`;
    const q = (c: string) => (db.dialect === "mysql" ? `\`${c}\`` : `"${c}"`);
    const drop = (t: string, c: string) =>
      db.prisma.$executeRawUnsafe(`ALTER TABLE ${table(t)} DROP COLUMN ${q(c)}`);

    beforeAll(async () => {
      for (const [t, columns] of lateColumns()) for (const c of columns) await drop(t, c);
    });
    afterAll(() => db.close());

    test("the adapter's late fields are the columns the CLI's model adds later", () => {
      const byTable = Object.fromEntries(lateColumns());
      expect(byTable).toEqual({
        accounts: [...LATE_FIELDS.account],
        sessions: [...LATE_FIELDS.session],
        verification_tokens: [...LATE_FIELDS.verificationToken],
        jwt_sessions: [...LATE_FIELDS.jwtSession],
      });
    });

    test("a database session check through Auth() signs in and reads the session; one warning per column, no value", async () => {
      const { warnings, logger } = recorder();
      const adapter = PrismaAdapter(client, { ...db.options, logger });
      const email = `old-${hex()}@example.com`;
      const user = await adapter.createUser({ id: hex(), email, emailVerified: null });
      const password = hex();
      const config: AuthConfig = {
        secret: "a-test-secret-that-is-long-enough-for-gatehouse-0123456789",
        trustHost: true,
        adapter,
        session: { strategy: "database" },
        providers: [
          Credentials({
            credentials: { email: {}, password: {} },
            authorize: (c) => (c.email === email && c.password === password ? { ...user } : null),
          }),
        ],
      };
      const browsers = [new Browser(config), new Browser(config)];
      for (const browser of browsers) {
        const csrf = (await (await browser.send("/auth/csrf")).json()) as { csrfToken: string };
        const signIn = await browser.send("/auth/callback/credentials", {
          csrfToken: csrf.csrfToken,
          email,
          password,
        });
        expect(signIn.status, "sign-in redirects").toBe(302);
        expect(signIn.headers.get("location")).not.toMatch(/error/i);
        for (let check = 0; check < 3; check++) {
          const session = await browser.send("/auth/session");
          expect(session.status).toBe(200);
          expect(((await session.json()) as { user?: { email?: string } })?.user?.email).toBe(
            email,
          );
        }
      }
      for (const column of LATE_FIELDS.session) {
        expect(
          naming(warnings, "sessions", column),
          `${column}: ${warnings.join("\n")}`,
        ).toHaveLength(1);
      }
      expect(warnings.every((w) => w.includes("npx gatehouse migrate"))).toBe(true);
      const tokens = [
        ...browsers.flatMap((b) => [...b.cookies.values()]),
        email,
        password,
        user.id,
      ];
      for (const value of tokens) {
        expect(warnings.some((w) => w.includes(value))).toBe(false);
      }
    });

    test("adapter calls work without the columns; each column is warned about once; a check is then one query", async () => {
      const { warnings, logger } = recorder();
      const adapter = PrismaAdapter(client, { ...db.options, logger });
      const values: string[] = [];
      for (let round = 0; round < 3; round++) {
        const user = await adapter.createUser({
          id: hex(),
          email: `old-${hex()}@example.com`,
          emailVerified: null,
        });
        const accessToken = hex();
        const account = await adapter.linkAccount({
          userId: user.id,
          type: "oauth",
          provider: "github",
          providerAccountId: hex(),
          access_token: accessToken,
          error: `RefreshTokenError-${hex()}`,
        } as never);
        expect(account).toEqual({
          id: expect.any(String),
          userId: user.id,
          type: "oauth",
          provider: "github",
          providerAccountId: account.providerAccountId,
          access_token: accessToken,
        });
        expect(await adapter.getAccount(account.providerAccountId, "github")).toEqual(account);
        expect(await adapter.getUserByAccount(account)).toEqual(user);
        expect(await adapter.listAccountsByUserId(user.id)).toEqual([account]);
        expect(
          await adapter.updateAccount({
            provider: "github",
            providerAccountId: account.providerAccountId,
            error: "RefreshTokenError",
          } as never),
        ).toEqual(account);
        const sessionToken = hex();
        const expires = new Date(Date.now() + DAY);
        const ip = `203.0.113.${round + 1}`;
        const created = await adapter.createSession({
          sessionToken,
          userId: user.id,
          expires,
          createdAt: new Date(),
          lastSeenAt: new Date(),
          provider: "github",
          providerType: "oauth",
          client: "Firefox on Linux",
          ip,
          factors: "pwd",
        } as never);
        expect(created).toEqual({ id: expect.any(String), sessionToken, userId: user.id, expires });
        const checks = await Promise.all(
          Array.from({ length: 5 }, () => adapter.getSessionAndUser(sessionToken)),
        );
        for (const found of checks) expect(found).toEqual({ session: created, user });
        expect(await adapter.updateSession({ sessionToken, lastSeenAt: new Date() })).toEqual(
          created,
        );
        const later = new Date(Date.now() + 2 * DAY);
        expect(await adapter.updateSession({ sessionToken, expires: later })).toEqual({
          ...created,
          expires: later,
        });
        expect(await adapter.listSessionsByUserId(user.id)).toEqual([
          { ...created, expires: later },
        ]);
        db.queries.length = 0;
        expect((await adapter.getSessionAndUser(sessionToken))?.user).toEqual(user);
        expect(db.queries, "a session check once the columns are known missing").toHaveLength(1);
        expect(await adapter.deleteSession(sessionToken)).toEqual({ ...created, expires: later });
        expect(await adapter.unlinkAccount(account)).toEqual(account);
        values.push(accessToken, sessionToken, user.id, user.email, ip);
      }
      for (const column of LATE_FIELDS.session) {
        expect(
          naming(warnings, "sessions", column),
          `${column}: ${warnings.join("\n")}`,
        ).toHaveLength(1);
      }
      for (const column of LATE_FIELDS.account) {
        expect(
          naming(warnings, "accounts", column),
          `${column}: ${warnings.join("\n")}`,
        ).toHaveLength(1);
      }
      expect(warnings).toHaveLength(LATE_FIELDS.session.length + LATE_FIELDS.account.length);
      for (const warning of warnings) {
        expect(warning).toContain("npx gatehouse migrate");
        for (const value of values) expect(warning).not.toContain(value);
      }
    });

    test("racing first session checks on a fresh adapter warn once per column", async () => {
      const writer = PrismaAdapter(client, { ...db.options, logger: recorder().logger });
      const user = await writer.createUser({ id: hex(), email: "", emailVerified: null });
      const sessionToken = hex();
      const expires = new Date(Date.now() + DAY);
      await writer.createSession({ sessionToken, userId: user.id, expires });
      const { warnings, logger } = recorder();
      const reader = PrismaAdapter(client, { ...db.options, logger });
      const checks = await Promise.all(
        Array.from({ length: 10 }, () => reader.getSessionAndUser(sessionToken)),
      );
      for (const found of checks) expect(found?.session.expires).toEqual(expires);
      for (const column of LATE_FIELDS.session) {
        expect(
          naming(warnings, "sessions", column),
          `${column}: ${warnings.join("\n")}`,
        ).toHaveLength(1);
      }
      expect(warnings).toHaveLength(LATE_FIELDS.session.length);
    });

    test("magic links work without verification_tokens.tries; counting a code's try fails naming it", async () => {
      const { warnings, logger } = recorder();
      const adapter = PrismaAdapter(client, { ...db.options, logger });
      const token = { identifier: `${hex()}@example.com`, token: hex(), expires: new Date() };
      expect(await adapter.createVerificationToken?.(token)).toEqual(token);
      const error = await adapter.countVerificationTokenTry(token, 5).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /"verification_tokens".*"tries".*npx gatehouse migrate/,
      );
      expect((error as Error).message).not.toContain(token.token);
      expect(await adapter.useVerificationToken(token)).toEqual(token);
      expect(await adapter.useVerificationToken(token)).toBeNull();
      expect(naming(warnings, "verification_tokens", "tries")).toHaveLength(1);
      expect(warnings).toHaveLength(1);
    });

    test("a password hash with no column to hold it is refused, naming the column, never the hash", async () => {
      const adapter = PrismaAdapter(client, { ...db.options, logger: recorder().logger });
      const user = await adapter.createUser({ id: hex(), email: "", emailVerified: null });
      const passwordHash = `$argon2id$v=19$m=19456,t=2,p=1$${hex()}`;
      const key = { provider: "password", providerAccountId: user.id };
      const link = await adapter
        .linkAccount({ ...key, userId: user.id, type: "password" as never, passwordHash } as never)
        .catch((e: unknown) => e);
      expect(link).toBeInstanceOf(Error);
      expect((link as Error).message).toMatch(/"accounts".*"passwordHash".*npx gatehouse migrate/);
      expect((link as Error).message).not.toContain(passwordHash);
      expect(await adapter.getAccount(user.id, "password")).toBeNull();
      await adapter.linkAccount({ ...key, userId: user.id, type: "password" as never });
      const update = await adapter
        .updateAccount({ ...key, passwordHash } as never)
        .catch((e: unknown) => e);
      expect((update as Error).message).toMatch(/"passwordHash"/);
      expect((update as Error).message).not.toContain(passwordHash);
    });

    test("JWT session records go on without jwt_sessions.providerSid, warned about once", async () => {
      const { warnings, logger } = recorder();
      const store = PrismaRevocationStore(client as never, { ...db.options, logger });
      const userId = hex();
      const expires = new Date(Date.now() + DAY);
      for (const sessionId of [hex(), hex()]) {
        await store.recordSession({
          userId,
          sessionId,
          expires,
          createdAt: new Date(),
          lastSeenAt: null,
          provider: "oidc",
          providerType: "oidc",
          client: null,
          ip: null,
          providerSid: `sid-${hex()}`,
        });
      }
      const listed = await store.listSessions(userId);
      expect(listed).toHaveLength(2);
      for (const record of listed) expect("providerSid" in record).toBe(false);
      expect(naming(warnings, "jwt_sessions", "providerSid")).toHaveLength(1);
      expect(warnings).toHaveLength(1);
    });

    test("a REQUIRED column missing is still an error, never warned about as optional", async () => {
      const { warnings, logger } = recorder();
      const adapter = PrismaAdapter(client, { ...db.options, logger });
      const user = await adapter.createUser({ id: hex(), email: "", emailVerified: null });
      const sessionToken = hex();
      await adapter.createSession({
        sessionToken,
        userId: user.id,
        expires: new Date(Date.now() + DAY),
      });
      await drop("sessions", "expires");
      await expect(adapter.getSessionAndUser(sessionToken)).rejects.toThrow(/expires/);
      await expect(
        adapter.createSession({ sessionToken: hex(), userId: user.id, expires: new Date() }),
      ).rejects.toThrow(/expires/);
      expect(warnings.filter((w) => w.includes('"expires"'))).toEqual([]);
    });
  });
}
