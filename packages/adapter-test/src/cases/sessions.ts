import { expect } from "vitest";
import { dateFromNow, expectNull, expectRow, expectRowOrNothing, type Group } from "../context.js";

export const sessions: Group = {
  title: "sessions",
  cases: [
    {
      name: "createSession stores the session and returns it",
      uses: ["createUser", "createSession"],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = ctx.newSession(user.id);
        expectRow(await ctx.a.createSession(session), session, "createSession's return value");
        if (ctx.db.session) {
          const row = await ctx.db.session(session.sessionToken);
          expectRow(row, session, "db.session(token) after createSession");
        }
      },
    },
    {
      name: "getSessionAndUser returns the session with its user, and null for an unknown token",
      uses: ["createUser", "createSession", "getSessionAndUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = ctx.newSession(user.id);
        await ctx.a.createSession(session);
        const found = await ctx.a.getSessionAndUser(session.sessionToken);
        expect(found, "getSessionAndUser(token) must return { session, user }").toBeTypeOf(
          "object",
        );
        expectRow(found?.session, session, "getSessionAndUser(token).session");
        expectRow(found?.user, user, "getSessionAndUser(token).user");
        expectNull(await ctx.a.getSessionAndUser(ctx.unique()), "getSessionAndUser(unknown token)");
      },
    },
    {
      name: "updateSession moves the expiry date",
      uses: ["createUser", "createSession", "updateSession", "getSessionAndUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = ctx.newSession(user.id);
        await ctx.a.createSession(session);
        const expires = dateFromNow(60 * 24 * 60 * 60 * 1000);
        const expected = { ...session, expires };
        const updated = await ctx.a.updateSession({ sessionToken: session.sessionToken, expires });
        expectRowOrNothing(updated, expected, "updateSession's return value");
        const found = await ctx.a.getSessionAndUser(session.sessionToken);
        expectRow(found?.session, expected, "getSessionAndUser(token).session after updateSession");
        if (ctx.db.session) {
          const row = await ctx.db.session(session.sessionToken);
          expectRow(row, expected, "db.session(token) after updateSession");
        }
      },
    },
    {
      name: "updateSession for an unknown token creates nothing",
      uses: ["updateSession", "getSessionAndUser"],
      async run(ctx) {
        const sessionToken = ctx.unique();
        // The contract allows null, undefined or a rejection here; it must not upsert.
        const updated = await ctx.a
          .updateSession({ sessionToken, expires: dateFromNow(60_000) })
          .catch(() => null);
        expect(
          updated ?? null,
          "updateSession(unknown token) must not return a session",
        ).toBeNull();
        expectNull(
          await ctx.a.getSessionAndUser(sessionToken),
          "getSessionAndUser after updateSession(unknown token)",
        );
      },
    },
    {
      name: "deleteSession removes the session and leaves the user's other sessions",
      uses: ["createUser", "createSession", "deleteSession", "getSessionAndUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        const session = ctx.newSession(user.id);
        const other = ctx.newSession(user.id);
        await ctx.a.createSession(session);
        await ctx.a.createSession(other);
        const deleted = await ctx.a.deleteSession(session.sessionToken);
        expectRowOrNothing(deleted, session, "deleteSession's return value");
        expectNull(
          await ctx.a.getSessionAndUser(session.sessionToken),
          "getSessionAndUser(token) after deleteSession",
        );
        const kept = await ctx.a.getSessionAndUser(other.sessionToken);
        expectRow(kept?.session, other, "getSessionAndUser(other token) after deleteSession");
        if (ctx.db.session) {
          const row = await ctx.db.session(session.sessionToken);
          expect(row, "db.session(token) after deleteSession").toBeFalsy();
        }
      },
    },
  ],
};
