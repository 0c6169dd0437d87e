/**
 * Session management (docs/sessions.md): the optional `listSessionsByUserId` and
 * `deleteSessionsByUserId`, and the session metadata (`createdAt`, `lastSeenAt`, `provider`,
 * `providerType`, `client`, `ip`, `factors`) an adapter that lists sessions is expected to keep. Every case
 * calls one of the two methods, so an adapter written for Auth.js (which has neither) skips them
 * all with the reason printed.
 */
import type { AdapterSession } from "@gatehousejs/core/adapters";
import { expect } from "vitest";
import { type Context, dateFromNow, expectRow, type Group } from "../context.js";

const metadata = () => ({
  createdAt: dateFromNow(-60_000),
  lastSeenAt: dateFromNow(-30_000),
  provider: "gatehouse-test-oidc",
  providerType: "oidc",
  client: "Firefox 133 on Linux",
  ip: "203.0.113.0",
  factors: "pwd otp",
});

/** The tokens `listSessionsByUserId(userId)` returns, sorted, after checking it is an array. */
async function listedTokens(ctx: Context, userId: string, where: string): Promise<string[]> {
  const listed: unknown = await ctx.a.listSessionsByUserId(userId);
  expect(Array.isArray(listed), `${where} must return an array`).toBe(true);
  return (listed as AdapterSession[]).map((s) => s.sessionToken).sort();
}

/** A deleted count the contract allows to be absent; when present it must be `expected`. */
function expectCount(actual: unknown, expected: number, where: string) {
  if (actual === undefined || actual === null) return;
  expect(actual, `${where} must return how many sessions it deleted`).toBe(expected);
}

export const sessionListing: Group = {
  title: "listing and ending a user's sessions",
  cases: [
    {
      name: "listSessionsByUserId lists exactly the user's sessions, with their metadata",
      uses: ["createUser", "createSession", "listSessionsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser();
        const other = await ctx.createUser();
        const first = { ...ctx.newSession(user.id), ...metadata() };
        const second = ctx.newSession(user.id);
        const theirs = ctx.newSession(other.id);
        for (const session of [first, second, theirs]) await ctx.a.createSession(session);

        const listed = await ctx.a.listSessionsByUserId(user.id);
        expect(
          await listedTokens(ctx, user.id, "listSessionsByUserId(id)"),
          "listSessionsByUserId(id) must list exactly the user's sessions",
        ).toEqual([first.sessionToken, second.sessionToken].sort());
        const withMetadata = listed.find((s) => s.sessionToken === first.sessionToken);
        expectRow(
          withMetadata,
          first,
          "listSessionsByUserId(id): the session created with metadata",
        );
        expect(await listedTokens(ctx, other.id, "listSessionsByUserId(other id)")).toEqual([
          theirs.sessionToken,
        ]);
        expect(await listedTokens(ctx, ctx.id(), "listSessionsByUserId(unknown id)")).toEqual([]);
      },
    },
    {
      name: "session metadata round-trips through getSessionAndUser and updateSession",
      uses: [
        "createUser",
        "createSession",
        "getSessionAndUser",
        "updateSession",
        "listSessionsByUserId",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = { ...ctx.newSession(user.id), ...metadata() };
        expectRow(await ctx.a.createSession(session), session, "createSession with metadata");
        const found = await ctx.a.getSessionAndUser(session.sessionToken);
        expectRow(found?.session, session, "getSessionAndUser(token).session with metadata");

        const lastSeenAt = dateFromNow(0);
        const expires = dateFromNow(40 * 24 * 60 * 60 * 1000);
        await ctx.a.updateSession({ sessionToken: session.sessionToken, expires, lastSeenAt });
        const after = await ctx.a.getSessionAndUser(session.sessionToken);
        expectRow(
          after?.session,
          { ...session, expires, lastSeenAt },
          "getSessionAndUser(token).session after updateSession({ expires, lastSeenAt })",
        );
      },
    },
    {
      name: "a session's refresh mark (error) round-trips, and null clears it",
      uses: ["createUser", "createSession", "getSessionAndUser", "updateSession"],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = ctx.newSession(user.id);
        await ctx.a.createSession(session);
        await ctx.a.updateSession({
          sessionToken: session.sessionToken,
          error: "RefreshTokenError",
        });
        const marked = await ctx.a.getSessionAndUser(session.sessionToken);
        expect(marked?.session.error, "updateSession({ error }) must be read back").toBe(
          "RefreshTokenError",
        );
        await ctx.a.updateSession({ sessionToken: session.sessionToken, error: null });
        const cleared = await ctx.a.getSessionAndUser(session.sessionToken);
        expect(cleared?.session.error ?? null, "updateSession({ error: null }) must clear it").toBe(
          null,
        );
        expect(cleared?.session.userId).toBe(user.id);
      },
    },
    {
      name: "a session created without metadata still reads, its metadata empty",
      uses: ["createUser", "createSession", "getSessionAndUser", "listSessionsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = ctx.newSession(user.id);
        await ctx.a.createSession(session);
        const found = await ctx.a.getSessionAndUser(session.sessionToken);
        expectRow(
          found?.session,
          session,
          "getSessionAndUser(token) of a session without metadata",
        );
        for (const field of [
          "createdAt",
          "lastSeenAt",
          "provider",
          "providerType",
          "client",
          "ip",
          "factors",
        ]) {
          expect(
            (found?.session as unknown as Record<string, unknown> | undefined)?.[field] ?? null,
            `a session created without metadata must read "${field}" as null or undefined`,
          ).toBeNull();
        }
      },
    },
    {
      name: "deleteSessionsByUserId deletes the user's sessions but the excepted one, and no one else's",
      uses: [
        "createUser",
        "createSession",
        "getSessionAndUser",
        "deleteSessionsByUserId",
        "listSessionsByUserId",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const other = await ctx.createUser();
        const kept = ctx.newSession(user.id);
        const ended = [ctx.newSession(user.id), ctx.newSession(user.id)];
        const theirs = ctx.newSession(other.id);
        for (const session of [kept, ...ended, theirs]) await ctx.a.createSession(session);

        expectCount(
          await ctx.a.deleteSessionsByUserId(user.id, { except: kept.sessionToken }),
          2,
          "deleteSessionsByUserId(id, { except })",
        );
        expect(await listedTokens(ctx, user.id, "listSessionsByUserId after the delete")).toEqual([
          kept.sessionToken,
        ]);
        for (const session of ended) {
          expect(
            await ctx.a.getSessionAndUser(session.sessionToken),
            "getSessionAndUser of a deleted session",
          ).toBeNull();
        }
        expect(await ctx.a.getSessionAndUser(theirs.sessionToken)).not.toBeNull();

        expectCount(
          await ctx.a.deleteSessionsByUserId(user.id),
          1,
          "deleteSessionsByUserId(id) without except",
        );
        expect(await listedTokens(ctx, user.id, "listSessionsByUserId after deleting all")).toEqual(
          [],
        );
        expect(await listedTokens(ctx, other.id, "the other user's sessions")).toEqual([
          theirs.sessionToken,
        ]);
        expectCount(
          await ctx.a.deleteSessionsByUserId(ctx.id()),
          0,
          "deleteSessionsByUserId(unknown id)",
        );
      },
    },
  ],
};
