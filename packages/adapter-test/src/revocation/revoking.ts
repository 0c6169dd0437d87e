import { expect } from "vitest";
import { type RevocationContext, type RevocationGroup, sleep } from "./context.js";

/** Asserts what `check` answers for each `[userId, sessionId, issuedAt]`. */
async function expectChecks(
  ctx: RevocationContext,
  expected: readonly (readonly [
    userId: string,
    sessionId: string,
    issuedAt: number,
    revoked: boolean,
  ])[],
  when: string,
): Promise<void> {
  for (const [userId, sessionId, issuedAt, revoked] of expected) {
    expect(
      await ctx.store.check({ userId, sessionId, issuedAt }),
      `${when}: check(${JSON.stringify({ userId, sessionId, issuedAt })}) must be ${revoked}`,
    ).toBe(revoked);
  }
}

export const revokingSessions: RevocationGroup = {
  title: "check and revokeSession",
  cases: [
    {
      name: "nothing is revoked for a user or a session the store has never seen",
      uses: ["check"],
      async run(ctx) {
        const [userId, sessionId] = [ctx.userId(), ctx.sessionId()];
        await expectChecks(
          ctx,
          [
            [userId, sessionId, ctx.seconds(), false],
            [userId, sessionId, 0, false],
            [userId, "legacy", 0, false],
          ],
          "on an empty store",
        );
      },
    },
    {
      name: "revokeSession ends that session, whenever it was issued, and no other",
      uses: ["check", "revokeSession"],
      async run(ctx) {
        const [userId, other] = [ctx.userId(), ctx.userId()];
        const [a, b] = [ctx.sessionId(), ctx.sessionId()];
        const now = ctx.seconds();
        await expectChecks(ctx, [[userId, a, now - 10, false]], "before revokeSession");
        // The other user has revocations of its own, so a store that looks the user up first
        // still has to tell the two sessions named `a` apart.
        await ctx.store.revokeSession({ userId: other, sessionId: b, expires: ctx.later() });
        await ctx.store.revokeSession({ userId, sessionId: a, expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            [userId, a, now - 10, true],
            // Revoked by id: when the token was issued does not matter.
            [userId, a, 0, true],
            [userId, a, now + 3600, true],
            [userId, b, now - 10, false],
            // The same id under another user is another session: one user cannot end another's.
            [other, a, now - 10, false],
          ],
          "after revokeSession(a)",
        );
      },
    },
    {
      name: "user and session ids are opaque: separators, escapes and unicode never collide",
      uses: ["check", "revokeSession", "revokeUser"],
      async run(ctx) {
        const base = ctx.userId();
        const now = ctx.seconds();
        await ctx.store.revokeSession({
          userId: `${base}:x`,
          sessionId: "s:1",
          expires: ctx.later(),
        });
        await ctx.store.revokeSession({
          userId: `${base}:ключ`,
          sessionId: "сессия",
          expires: ctx.later(),
        });
        await ctx.store.revokeUser({ userId: `${base}:epoch`, at: now, expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            [`${base}:x`, "s:1", now, true],
            [base, "x:s:1", now, false],
            [`${base}:x:s`, "1", now, false],
            [`${base}%3Ax`, "s:1", now, false],
            [`${base}:x`, "s%3A1", now, false],
            [`${base}:ключ`, "сессия", now, true],
            [`${base}:ключ`, "сесси", now, false],
            [`${base}:epoch`, "any", now - 5, true],
            [base, "epoch", now - 5, false],
            [`${base}:epoch:`, "any", now - 5, false],
            [`${base}:epoc`, "any", now - 5, false],
          ],
          "after revocations under ids with separators",
        );
      },
    },
  ],
};

export const revokingUsers: RevocationGroup = {
  title: "revokeUser",
  cases: [
    {
      name: "revokeUser ends every session issued at or before `at`; sessions issued after it live on",
      uses: ["check", "revokeUser"],
      async run(ctx) {
        const [userId, other] = [ctx.userId(), ctx.userId()];
        const [a, b] = [ctx.sessionId(), ctx.sessionId()];
        const now = ctx.seconds();
        await ctx.store.revokeUser({ userId, at: now, expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            [userId, a, now - 100, true],
            [userId, b, now, true],
            [userId, "legacy", 0, true],
            // Without `except`, no id is spared: not even the empty one.
            [userId, "", now - 100, true],
            // Issued after the epoch (a new sign-in): alive.
            [userId, a, now + 1, false],
            // Another user is untouched.
            [other, a, now - 100, false],
          ],
          "after revokeUser(at: now)",
        );
      },
    },
    {
      name: "revokeUser spares the session `except`, and only that one",
      uses: ["check", "revokeUser"],
      async run(ctx) {
        const userId = ctx.userId();
        const [kept, other] = [ctx.sessionId(), ctx.sessionId()];
        const now = ctx.seconds();
        await ctx.store.revokeUser({ userId, at: now, except: kept, expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            [userId, kept, now - 100, false],
            [userId, kept, now, false],
            [userId, other, now - 100, true],
            [ctx.userId(), other, now - 100, false],
          ],
          "after revokeUser(at: now, except: kept)",
        );
      },
    },
    {
      name: "an epoch never spares the session id `legacy`, even when `except` names it",
      uses: ["check", "revokeUser"],
      async run(ctx) {
        const userId = ctx.userId();
        const now = ctx.seconds();
        // Every token without a sid is checked as "legacy": sparing it would spare them all.
        await ctx.store.revokeUser({ userId, at: now, except: "legacy", expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            [userId, "legacy", now - 100, true],
            [userId, "legacy", now, true],
            // A token without a sid issued after the epoch lives on, as any session does.
            [userId, "legacy", now + 1, false],
          ],
          'after revokeUser(except: "legacy")',
        );
      },
    },
    {
      name: "revocations add up: a later revokeUser with an earlier `at` brings no session back",
      uses: ["check", "revokeUser"],
      async run(ctx) {
        const userId = ctx.userId();
        const [kept, other] = [ctx.sessionId(), ctx.sessionId()];
        const now = ctx.seconds();
        await ctx.store.revokeUser({ userId, at: now, except: kept, expires: ctx.later() });
        await ctx.store.revokeUser({ userId, at: now - 50, expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            // Issued after the second `at`, so only the first revocation covers it: still ended.
            [userId, other, now - 10, true],
            [userId, other, now, true],
            // Spared by the first, but issued before the second, which spares nothing.
            [userId, kept, now - 100, true],
            [userId, other, now + 1, false],
          ],
          "after revokeUser(at: now, except) then revokeUser(at: now - 50)",
        );
      },
    },
    {
      name: "a session revoked by id stays revoked when a later revokeUser spares it",
      uses: ["check", "revokeSession", "revokeUser"],
      async run(ctx) {
        const userId = ctx.userId();
        const [gone, other] = [ctx.sessionId(), ctx.sessionId()];
        const now = ctx.seconds();
        await ctx.store.revokeSession({ userId, sessionId: gone, expires: ctx.later() });
        await ctx.store.revokeUser({ userId, at: now, except: gone, expires: ctx.later() });
        await expectChecks(
          ctx,
          [
            [userId, gone, now - 100, true],
            [userId, gone, now + 1, true],
            [userId, other, now - 100, true],
          ],
          "after revokeSession(gone) then revokeUser(except: gone)",
        );
      },
    },
  ],
};

export const revocationExpiry: RevocationGroup = {
  title: "expiry",
  cases: [
    {
      name: "a revocation holds until its expires: revoking again with an earlier expires shortens neither a session's nor a user's",
      uses: ["check", "revokeSession", "revokeUser"],
      timeout: 10_000,
      async run(ctx) {
        const [userId, epochUser] = [ctx.userId(), ctx.userId()];
        const sessionId = ctx.sessionId();
        const now = ctx.seconds();
        await ctx.store.revokeSession({ userId, sessionId, expires: ctx.later() });
        await ctx.store.revokeSession({ userId, sessionId, expires: ctx.later() }); // twice: harmless
        await ctx.store.revokeSession({ userId, sessionId, expires: ctx.later(200) });
        await ctx.store.revokeUser({ userId: epochUser, at: now, expires: ctx.later() });
        await ctx.store.revokeUser({ userId: epochUser, at: now, expires: ctx.later(200) });
        const expected = [
          [userId, sessionId, now, true],
          [epochUser, ctx.sessionId(), now - 10, true],
        ] as const;
        await expectChecks(ctx, expected, "right after the revocations");
        await sleep(600);
        // The first revocations last an hour; the later, shorter ones must not cut them short.
        await expectChecks(ctx, expected, "after the shorter expires has passed");
      },
    },
  ],
};
