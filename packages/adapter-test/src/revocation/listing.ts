import { expect } from "vitest";
import { expectRecord, HOUR, idsOf, type RevocationGroup, sleep } from "./context.js";

export const listing: RevocationGroup = {
  title: "listing recorded sessions (recordSession, listSessions)",
  cases: [
    {
      name: "a recorded session is listed field for field; a user without records lists none",
      uses: ["recordSession", "listSessions"],
      async run(ctx) {
        const userId = ctx.userId();
        const full = ctx.record(userId);
        const bare = ctx.record(userId, {
          lastSeenAt: null,
          provider: null,
          providerType: null,
          client: null,
          ip: null,
          providerSid: null,
        });
        await ctx.store.recordSession(full);
        await ctx.store.recordSession(bare);
        await ctx.store.recordSession(ctx.record(ctx.userId())); // someone else's
        const listed = await ctx.store.listSessions(userId);
        expect(idsOf(listed), "listSessions(userId): exactly the user's sessions").toEqual(
          idsOf([full, bare]),
        );
        for (const [record, what] of [
          [full, "a session recorded with every field"],
          [bare, "a session recorded with null fields"],
        ] as const) {
          expectRecord(
            listed.find((r) => r.sessionId === record.sessionId),
            record,
            `listSessions(userId): ${what}`,
          );
        }
        expect(
          await ctx.store.listSessions(ctx.userId()),
          "listSessions(a user without records)",
        ).toEqual([]);
      },
    },
    {
      name: "a session recorded again is listed once, updated; fields left undefined keep their value",
      uses: ["recordSession", "listSessions"],
      async run(ctx) {
        const userId = ctx.userId();
        const first = ctx.record(userId);
        await ctx.store.recordSession(first);
        // Seen again after updateAge: new times, and the token re-issued with a later expiry.
        const seen = { ...first, lastSeenAt: new Date(), expires: ctx.later(2 * HOUR) };
        await ctx.store.recordSession(seen);
        const listed = await ctx.store.listSessions(userId);
        expect(listed, "listSessions after recording one session twice").toHaveLength(1);
        expectRecord(listed[0], seen, "the session recorded again");
        // A re-issued token is recorded without its provider (undefined): the sign-in's stays.
        const reissued = { ...seen, provider: undefined, providerType: undefined };
        await ctx.store.recordSession(reissued);
        expectRecord(
          (await ctx.store.listSessions(userId))[0],
          seen,
          "the session recorded again with provider and providerType undefined",
        );
      },
    },
    {
      name: "a session revoked by id is no longer listed; the user's other sessions still are",
      uses: ["recordSession", "listSessions", "revokeSession"],
      async run(ctx) {
        const userId = ctx.userId();
        const [gone, kept] = [ctx.record(userId), ctx.record(userId)];
        await ctx.store.recordSession(gone);
        await ctx.store.recordSession(kept);
        await ctx.store.revokeSession({ userId, sessionId: gone.sessionId, expires: gone.expires });
        expect(
          idsOf(await ctx.store.listSessions(userId)),
          "listSessions after revokeSession of one of two sessions",
        ).toEqual([kept.sessionId]);
      },
    },
    {
      name: "revokeUser unlists what it ends; the spared session and one created after `at` stay",
      uses: ["recordSession", "listSessions", "revokeUser"],
      async run(ctx) {
        const userId = ctx.userId();
        const at = ctx.seconds();
        const older = ctx.record(userId, { createdAt: new Date((at - 120) * 1000) });
        const inTheSecond = ctx.record(userId, { createdAt: new Date(at * 1000 + 999) });
        const kept = ctx.record(userId);
        for (const r of [older, inTheSecond, kept]) await ctx.store.recordSession(r);
        await ctx.store.revokeUser({ userId, at, except: kept.sessionId, expires: ctx.later() });
        // A sign-in after the revocation: its session began after `at`.
        const after = ctx.record(userId, { createdAt: new Date((at + 1) * 1000) });
        await ctx.store.recordSession(after);
        expect(
          idsOf(await ctx.store.listSessions(userId)),
          "listSessions after revokeUser(at, except: kept): the spared session and the later one",
        ).toEqual(idsOf([kept, after]));
      },
    },
    {
      name: "a session recorded after its revocation is not listed (a re-issue racing the revocation)",
      uses: ["recordSession", "listSessions", "revokeSession", "revokeUser"],
      async run(ctx) {
        const [byId, byEpoch] = [ctx.userId(), ctx.userId()];
        const gone = ctx.record(byId);
        await ctx.store.revokeSession({
          userId: byId,
          sessionId: gone.sessionId,
          expires: gone.expires,
        });
        await ctx.store.recordSession(gone);
        expect(
          await ctx.store.listSessions(byId),
          "listSessions: a session recorded after revokeSession named it",
        ).toEqual([]);
        const at = ctx.seconds();
        await ctx.store.revokeUser({ userId: byEpoch, at, expires: ctx.later() });
        await ctx.store.recordSession(ctx.record(byEpoch));
        await ctx.store.recordSession(
          ctx.record(byEpoch, { createdAt: new Date(at * 1000 + 500) }),
        );
        expect(
          await ctx.store.listSessions(byEpoch),
          "listSessions: sessions created at or before `at`, recorded after revokeUser",
        ).toEqual([]);
      },
    },
    {
      name: "expired sessions are not listed",
      uses: ["recordSession", "listSessions"],
      timeout: 10_000,
      async run(ctx) {
        const userId = ctx.userId();
        const live = ctx.record(userId);
        const ending = ctx.record(userId, { expires: ctx.later(500) });
        await ctx.store.recordSession(ctx.record(userId, { expires: new Date(Date.now() - HOUR) }));
        await ctx.store.recordSession(ending);
        await ctx.store.recordSession(live);
        expect(
          idsOf(await ctx.store.listSessions(userId)),
          "listSessions: one session expired an hour ago, one ends in 500 ms, one in an hour",
        ).toEqual(idsOf([live, ending]));
        await sleep(1200);
        expect(
          idsOf(await ctx.store.listSessions(userId)),
          "listSessions once the 500 ms session has expired",
        ).toEqual([live.sessionId]);
      },
    },
  ],
};

export const concurrency: RevocationGroup = {
  title: "concurrency",
  cases: [
    {
      name: "20 simultaneous revocations of one user's sessions all hold, with checks racing them",
      uses: ["check", "revokeSession"],
      async run(ctx) {
        const userId = ctx.userId();
        const ids = Array.from({ length: 20 }, () => ctx.sessionId());
        const issuedAt = ctx.seconds() - 5;
        await Promise.all(
          ids.map(async (sessionId, i) => {
            await ctx.store.check({ userId, sessionId, issuedAt });
            if (i % 2 === 0)
              await ctx.store.revokeSession({ userId, sessionId, expires: ctx.later() });
            await ctx.store.check({ userId, sessionId, issuedAt });
          }),
        );
        const answers = await Promise.all(
          ids.map((sessionId) => ctx.store.check({ userId, sessionId, issuedAt })),
        );
        expect(answers, "check of each session: the even ones were revoked").toEqual(
          ids.map((_, i) => i % 2 === 0),
        );
      },
    },
    {
      name: "20 simultaneous revokeUser calls with different `at` lose none of them",
      uses: ["check", "revokeUser"],
      async run(ctx) {
        const userId = ctx.userId();
        const now = ctx.seconds();
        // The latest `at` goes first and ends the most: the calls after it must not undo it, as a
        // store that reads the epoch, then writes the larger one in another step, would.
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            ctx.store.revokeUser({ userId, at: now - 1 - i, expires: ctx.later() }),
          ),
        );
        for (const issuedAt of [now - 20, now - 1]) {
          expect(
            await ctx.store.check({ userId, sessionId: ctx.sessionId(), issuedAt }),
            `check(issuedAt: now - ${now - issuedAt}) after 20 simultaneous revokeUser calls up to now - 1`,
          ).toBe(true);
        }
        expect(
          await ctx.store.check({ userId, sessionId: ctx.sessionId(), issuedAt: now }),
          "check(issuedAt: now): issued after every `at`",
        ).toBe(false);
      },
    },
    {
      name: "20 sessions of one user recorded at the same moment are all listed",
      uses: ["recordSession", "listSessions"],
      async run(ctx) {
        const userId = ctx.userId();
        const records = Array.from({ length: 20 }, () => ctx.record(userId));
        await Promise.all(records.map((r) => ctx.store.recordSession(r)));
        expect(
          idsOf(await ctx.store.listSessions(userId)),
          "listSessions after 20 simultaneous recordSession calls",
        ).toEqual(idsOf(records));
      },
    },
  ],
};
