import type { SecurityEvent } from "@gatehousejs/core/types";
import { expect } from "vitest";
import {
  DAY,
  expectEvent,
  MINUTE,
  offsets,
  type SecurityEventGroup,
  securityEventTypes,
  T0,
} from "./context.js";

export const recording: SecurityEventGroup = {
  title: "record and list",
  cases: [
    {
      name: "an event reads back field for field, `at` to the millisecond; a user without events lists none",
      uses: ["record", "list"],
      async run(ctx) {
        const userId = ctx.userId();
        const full = ctx.eventAt(userId, 321, {
          type: "signInFailed",
          reason: "CredentialsSignin",
        });
        await ctx.store.record(full);
        expectEvent(
          (await ctx.store.list(userId, { limit: 10 }))[0],
          full,
          "an event with every field",
        );
        // Only the required fields: the others read back null (or absent).
        const bare: SecurityEvent = {
          id: crypto.randomUUID(),
          userId,
          type: "signOut",
          at: new Date(T0 + MINUTE + 654),
        };
        await ctx.store.record(bare);
        const withNulls = ctx.eventAt(userId, 2 * MINUTE + 987, {
          provider: null,
          providerType: null,
          newClient: null,
          client: null,
          ip: null,
          sessionId: null,
          reason: null,
        });
        await ctx.store.record(withNulls);
        const listed = await ctx.store.list(userId, { limit: 10 });
        expect(listed, "list(userId) after three events").toHaveLength(3);
        expectEvent(listed[0], withNulls, "an event with every optional field null");
        expectEvent(listed[1], bare, "an event with only the required fields");
        expectEvent(listed[2], full, "an event with every field");
        expect(
          await ctx.store.list(ctx.userId(), { limit: 10 }),
          "list(a user without events)",
        ).toEqual([]);
      },
    },
    {
      name: "every event type and both values of newClient read back as recorded",
      uses: ["record", "list"],
      async run(ctx) {
        const userId = ctx.userId();
        const events = securityEventTypes.map((type, i) =>
          ctx.eventAt(userId, i * MINUTE, { type, newClient: i % 2 === 0 }),
        );
        for (const event of events) await ctx.store.record(event);
        const listed = await ctx.store.list(userId, { limit: events.length });
        for (const [i, event] of [...events].reverse().entries()) {
          expectEvent(listed[i], event, `the ${event.type} event`);
        }
      },
    },
    {
      name: "events list newest first, at most `limit`, and only strictly before `before`",
      uses: ["record", "list"],
      async run(ctx) {
        const [userId, other] = [ctx.userId(), ctx.userId()];
        // Recorded out of order: the store orders by `at`, not by arrival.
        for (const minute of [3, 0, 4, 1, 2])
          await ctx.store.record(ctx.eventAt(userId, minute * MINUTE));
        await ctx.store.record(ctx.eventAt(other, 10 * MINUTE));
        const list = async (options: { limit: number; before?: Date }) =>
          offsets(await ctx.store.list(userId, options));
        const before = new Date(T0 + 3 * MINUTE);
        expect(await list({ limit: 10 }), "list(limit 10)").toEqual([4, 3, 2, 1, 0]);
        expect(await list({ limit: 2 }), "list(limit 2)").toEqual([4, 3]);
        expect(await list({ limit: 10, before }), "list(before minute 3)").toEqual([2, 1, 0]);
        expect(await list({ limit: 1, before }), "list(limit 1, before minute 3)").toEqual([2]);
        expect(await list({ limit: 10, before: new Date(T0) }), "list(before the first)").toEqual(
          [],
        );
      },
    },
    {
      name: "paging with `before` set to the last listed event's time walks the log once, in order",
      uses: ["record", "list"],
      async run(ctx) {
        const userId = ctx.userId();
        for (let minute = 0; minute < 7; minute++)
          await ctx.store.record(ctx.eventAt(userId, minute * MINUTE));
        const pages: number[][] = [];
        let before: Date | undefined;
        for (let page = 0; page < 5; page++) {
          const events = await ctx.store.list(userId, { limit: 3, ...(before ? { before } : {}) });
          if (events.length === 0) break;
          pages.push(offsets(events));
          before = events[events.length - 1]!.at;
        }
        expect(pages, "pages of 3").toEqual([[6, 5, 4], [3, 2, 1], [0]]);
      },
    },
    {
      name: "two events at the same instant are both kept",
      uses: ["record", "list"],
      async run(ctx) {
        const userId = ctx.userId();
        const [a, b] = [ctx.eventAt(userId, 0), ctx.eventAt(userId, 0, { type: "signOut" })];
        await ctx.store.record(a);
        await ctx.store.record(b);
        const listed = await ctx.store.list(userId, { limit: 10 });
        expect(listed.map((e) => e.id).sort(), "two events with one `at`").toEqual(
          [a.id, b.id].sort(),
        );
      },
    },
    {
      name: "user ids are opaque: separators, escapes and unicode keep logs apart",
      uses: ["record", "list"],
      async run(ctx) {
        const base = ctx.userId();
        const users = [base, `${base}:a`, `${base}%3Aa`, `${base}:a:b`, `${base}:ключ`, `${base}*`];
        for (const [i, userId] of users.entries()) {
          for (let n = 0; n <= i; n++) await ctx.store.record(ctx.eventAt(userId, n * MINUTE));
        }
        for (const [i, userId] of users.entries()) {
          const listed = await ctx.store.list(userId, { limit: 20 });
          expect(listed.length, `list(${JSON.stringify(userId)})`).toBe(i + 1);
          expect(
            listed.every((e) => e.userId === userId),
            `list(${JSON.stringify(userId)}): its user`,
          ).toBe(true);
        }
      },
    },
  ],
};

export const pruning: SecurityEventGroup = {
  title: "prune",
  cases: [
    {
      name: "prune deletes the events older than the cutoff, for every user, and keeps the rest",
      uses: ["record", "list", "prune"],
      async run(ctx) {
        const [a, b, c] = [ctx.userId(), ctx.userId(), ctx.userId()];
        const cutoff = new Date(T0 - 5 * DAY);
        await ctx.store.record(ctx.eventAt(a, -10 * DAY));
        await ctx.store.record(ctx.eventAt(a, -DAY));
        await ctx.store.record(ctx.eventAt(a, 0));
        await ctx.store.record(ctx.eventAt(b, -20 * DAY));
        await ctx.store.record(ctx.eventAt(c, -5 * DAY)); // exactly at the cutoff: not older
        await ctx.store.record(ctx.eventAt(c, -5 * DAY - 1));
        await ctx.store.prune(cutoff);
        const days = async (userId: string) =>
          offsets(await ctx.store.list(userId, { limit: 10 }), DAY);
        expect(await days(a), "a user with one event older than the cutoff").toEqual([0, -1]);
        expect(await days(b), "a user whose every event is older").toEqual([]);
        expect(await days(c), "events at the cutoff and one millisecond before it").toEqual([-5]);
        // A user pruned away records again as new.
        await ctx.store.record(ctx.eventAt(b, 0));
        expect(await days(b), "a pruned user's new event").toEqual([0]);
        await ctx.store.prune(cutoff); // again, with nothing to delete
        expect(await days(a), "after pruning again").toEqual([0, -1]);
      },
    },
  ],
};

export const concurrency: SecurityEventGroup = {
  title: "concurrency",
  cases: [
    {
      name: "50 events of one user recorded at the same moment are all kept, newest first",
      uses: ["record", "list"],
      async run(ctx) {
        const userId = ctx.userId();
        const events = Array.from({ length: 50 }, (_, i) => ctx.eventAt(userId, i * 1000));
        await Promise.all(events.map((e) => ctx.store.record(e)));
        const listed = await ctx.store.list(userId, { limit: 100 });
        expect(offsets(listed, 1000), "list after 50 simultaneous records").toEqual(
          events.map((_, i) => 49 - i),
        );
      },
    },
  ],
};
