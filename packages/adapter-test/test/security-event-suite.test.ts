/**
 * The security-event store suite can fail: a small store written for this test passes every
 * case, and the same store with one bug at a time fails the case named for it. Every case catches
 * at least one bug, so none of them passes whatever the store does.
 */
import type { SecurityEvent, SecurityEventStore } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { suite } from "../src/security-events/index.js";
import { caseNames, runCase, tick } from "./support/run-case.js";

type Bug =
  | "keeps times to the second"
  | "keeps newClient false as null"
  | "lists in the order events arrived"
  | "lists the events at `before` too"
  | "keeps one event per instant"
  | "finds a user's events by the start of the id"
  | "prunes the events at the cutoff too"
  | "reads and writes a user's log in two steps";

/** A security-event store in memory, right unless given a bug. */
function toyStore(bug?: Bug): SecurityEventStore {
  const logs = new Map<string, SecurityEvent[]>();
  const ms = (event: SecurityEvent) => event.at.getTime();
  return {
    async record(event) {
      const stored: SecurityEvent = { ...event, at: new Date(event.at) };
      if (bug === "keeps times to the second")
        stored.at = new Date(Math.floor(ms(event) / 1000) * 1000);
      if (bug === "keeps newClient false as null") stored.newClient = event.newClient || null;
      const log = [...(logs.get(event.userId) ?? [])];
      if (bug === "reads and writes a user's log in two steps") await tick();
      const kept =
        bug === "keeps one event per instant" ? log.filter((e) => ms(e) !== ms(stored)) : log;
      logs.set(event.userId, [...kept, stored]);
    },
    async list(userId, { limit, before }) {
      const mine =
        bug === "finds a user's events by the start of the id"
          ? [...logs].filter(([id]) => id.startsWith(userId)).flatMap(([, log]) => log)
          : (logs.get(userId) ?? []);
      const cutoff = before?.getTime() ?? Number.POSITIVE_INFINITY;
      const inclusive = bug === "lists the events at `before` too";
      const earlier = mine.filter((e) => ms(e) < cutoff || (inclusive && ms(e) === cutoff));
      const ordered =
        bug === "lists in the order events arrived"
          ? [...earlier].reverse()
          : [...earlier].sort((a, b) => ms(b) - ms(a));
      return ordered.slice(0, limit).map((e) => ({ ...e, at: new Date(e.at) }));
    },
    async prune(olderThan) {
      const cutoff = olderThan.getTime();
      const inclusive = bug === "prunes the events at the cutoff too";
      for (const [userId, log] of logs) {
        logs.set(
          userId,
          log.filter((e) => ms(e) > cutoff || (!inclusive && ms(e) === cutoff)),
        );
      }
    },
  };
}

const names = caseNames(suite);
const [fields, types, order, paging, sameInstant, opaque, prune, racing] = names;

/** Each bug, and the case that must fail for it. */
const caught: [Bug, string | undefined][] = [
  ["keeps times to the second", fields],
  ["keeps newClient false as null", types],
  ["lists in the order events arrived", order],
  ["lists the events at `before` too", paging],
  ["keeps one event per instant", sameInstant],
  ["finds a user's events by the start of the id", opaque],
  ["prunes the events at the cutoff too", prune],
  ["reads and writes a user's log in two steps", racing],
];

describe("the security-event store suite", () => {
  test("has the 8 cases this test names, in order", () => {
    expect(names).toHaveLength(8);
    expect(new Set(caught.map(([, name]) => name))).toEqual(new Set(names));
  });

  test.each(names)("a store without a bug passes: %s", async (name) => {
    await runCase(suite, toyStore(), name);
  });

  test.each(caught)("a store that %s fails: %s", async (bug, name) => {
    await expect(runCase(suite, toyStore(bug), name!)).rejects.toThrow();
  });
});
