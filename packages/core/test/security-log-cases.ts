/**
 * The behaviour every SecurityEventStore must have, run against the memory store here and
 * against PostgreSQL and Redis in tests/integration/security-log-stores.test.ts.
 */
import { randomUUID } from "node:crypto";
import type { SecurityEvent, SecurityEventStore } from "@gatehousejs/core/types";
import { expect, test } from "vitest";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

/** An event of `userId` at `T0 + offset` ms, with every field set. */
export function eventAt(userId: string, offset: number, extra: Partial<SecurityEvent> = {}) {
  return {
    id: randomUUID(),
    userId,
    type: "signIn",
    at: new Date(T0 + offset),
    provider: "github",
    providerType: "oauth",
    newClient: true,
    client: "Firefox 133 on Linux",
    ip: "203.0.113.0",
    sessionId: "AAAAAAAAAAAAAAAAAAAAAA",
    reason: null,
    ...extra,
  } satisfies SecurityEvent;
}

/**
 * Registers the store cases. `open` gives a store over an empty place of its own (fresh keys, a
 * fresh schema); `close` removes it.
 */
export function securityEventStoreCases(open: () => Promise<SecurityEventStore>) {
  test("an event reads back field for field; a user without events lists nothing", async () => {
    const store = await open();
    const user = randomUUID();
    const event = eventAt(user, 0, { type: "signInFailed", newClient: null, reason: "X" });
    await store.record(event);
    expect(await store.list(user, { limit: 10 })).toEqual([event]);
    const bare = eventAt(user, 1, {
      type: "signOut",
      provider: null,
      providerType: null,
      newClient: null,
      client: null,
      ip: null,
      sessionId: null,
    });
    await store.record(bare);
    expect((await store.list(user, { limit: 10 }))[0]).toEqual(bare);
    expect(await store.list(randomUUID(), { limit: 10 })).toEqual([]);
  });

  test("events list newest first, at most `limit`, and only strictly before `before`", async () => {
    const store = await open();
    const user = randomUUID();
    const other = randomUUID();
    const events = [3, 0, 4, 1, 2].map((minute) => eventAt(user, minute * 60_000));
    for (const e of events) await store.record(e);
    await store.record(eventAt(other, 10 * 60_000));
    const minutes = (list: SecurityEvent[]) => list.map((e) => (e.at.getTime() - T0) / 60_000);
    expect(minutes(await store.list(user, { limit: 10 }))).toEqual([4, 3, 2, 1, 0]);
    expect(minutes(await store.list(user, { limit: 2 }))).toEqual([4, 3]);
    const before = new Date(T0 + 3 * 60_000);
    expect(minutes(await store.list(user, { limit: 10, before }))).toEqual([2, 1, 0]);
    expect(minutes(await store.list(user, { limit: 1, before }))).toEqual([2]);
    expect((await store.list(user, { limit: 10 })).every((e) => e.userId === user)).toBe(true);
  });

  test("prune deletes events older than the cutoff, for every user, and nothing newer", async () => {
    const store = await open();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await store.record(eventAt(a, -10 * DAY));
    await store.record(eventAt(a, -DAY));
    await store.record(eventAt(a, 0));
    await store.record(eventAt(b, -20 * DAY));
    await store.record(eventAt(c, -5 * DAY));
    await store.prune(new Date(T0 - 5 * DAY));
    const days = async (user: string) =>
      (await store.list(user, { limit: 10 })).map((e) => (e.at.getTime() - T0) / DAY);
    expect(await days(a)).toEqual([0, -1]);
    expect(await days(b)).toEqual([]);
    expect(await days(c)).toEqual([-5]);
    // A user pruned away records again as new.
    await store.record(eventAt(b, 0));
    expect(await days(b)).toEqual([0]);
  });
}
