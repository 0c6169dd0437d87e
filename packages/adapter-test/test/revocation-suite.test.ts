/**
 * The revocation store suite can fail: a small store written for this test passes every case,
 * and the same store with one bug at a time fails the case named for it. Every case catches at
 * least one bug, so none of them passes whatever the store does.
 */
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { suite } from "../src/revocation/index.js";
import { caseNames, runCase, tick } from "./support/run-case.js";

type Bug =
  | "answers revoked for a user it has never seen"
  | "keys revocations by session id alone"
  | "joins the user and session ids with a colon"
  | "leaves out sessions issued in the epoch's own second"
  | "stores a missing exception as the empty id"
  | "ignores the exception"
  | "spares legacy when the exception names it"
  | "lets a later revokeUser move the epoch back"
  | "lets the exception undo a revocation by id"
  | "lets a later revocation shorten an earlier one"
  | "keeps a record's dates to the second"
  | "replaces a record recorded again, undefined fields too"
  | "lists sessions revoked by id"
  | "lists sessions an epoch ended"
  | "unlists a session only when revoking it"
  | "lists expired sessions"
  | "reads and writes revocations in two steps"
  | "reads and writes the epoch in two steps"
  | "reads and writes a user's records in two steps";

interface Epoch {
  at: number;
  except: string | undefined;
  expires: number;
}

const toSecond = (date: Date | null | undefined) =>
  date instanceof Date ? new Date(Math.floor(date.getTime() / 1000) * 1000) : date;

/** A revocation store in memory, right unless given a bug. */
function toyStore(bug?: Bug): Required<RevocationStore> {
  let revoked = new Map<string, number>();
  const epochs = new Map<string, Epoch>();
  const records = new Map<string, RevocationSessionRecord[]>();
  const seen = new Set<string>();
  const key = (userId: string, sessionId: string) =>
    bug === "joins the user and session ids with a colon"
      ? `${userId}:${sessionId}`
      : JSON.stringify([bug === "keys revocations by session id alone" ? "" : userId, sessionId]);

  function revokedById(userId: string, sessionId: string, now: number): boolean {
    return (revoked.get(key(userId, sessionId)) ?? 0) > now;
  }
  function endedByEpoch(userId: string, sessionId: string, issuedAt: number, now: number) {
    const epoch = epochs.get(userId);
    if (!epoch || epoch.expires <= now) return { covered: false, spared: false };
    const covered =
      bug === "leaves out sessions issued in the epoch's own second"
        ? epoch.at > issuedAt
        : epoch.at >= issuedAt;
    const spared =
      bug !== "ignores the exception" &&
      epoch.except === sessionId &&
      (sessionId !== "legacy" || bug === "spares legacy when the exception names it");
    return { covered, spared };
  }
  function isRevoked(userId: string, sessionId: string, issuedAt: number): boolean {
    const now = Date.now();
    if (!seen.has(userId) && bug === "answers revoked for a user it has never seen") return true;
    const { covered, spared } = endedByEpoch(userId, sessionId, issuedAt, now);
    if (spared && bug === "lets the exception undo a revocation by id") return false;
    return revokedById(userId, sessionId, now) || (covered && !spared);
  }
  function unlist(userId: string, keep: (r: RevocationSessionRecord) => boolean) {
    if (bug === "unlists a session only when revoking it") {
      records.set(userId, (records.get(userId) ?? []).filter(keep));
    }
  }

  return {
    async check({ userId, sessionId, issuedAt }) {
      return isRevoked(userId, sessionId, issuedAt);
    },
    async revokeSession({ userId, sessionId, expires }) {
      seen.add(userId);
      const k = key(userId, sessionId);
      const ms = expires.getTime();
      if (bug === "reads and writes revocations in two steps") {
        const copy = new Map(revoked);
        await tick();
        revoked = copy.set(k, Math.max(ms, copy.get(k) ?? 0));
      } else if (bug === "lets a later revocation shorten an earlier one") revoked.set(k, ms);
      else revoked.set(k, Math.max(ms, revoked.get(k) ?? 0));
      unlist(userId, (r) => r.sessionId !== sessionId);
    },
    async revokeUser({ userId, at, except, expires }) {
      seen.add(userId);
      const previous = epochs.get(userId);
      if (bug === "reads and writes the epoch in two steps") await tick();
      const shorten = bug === "lets a later revocation shorten an earlier one";
      epochs.set(userId, {
        at:
          bug === "lets a later revokeUser move the epoch back"
            ? at
            : Math.max(at, previous?.at ?? 0),
        except: except ?? (bug === "stores a missing exception as the empty id" ? "" : undefined),
        expires: shorten ? expires.getTime() : Math.max(expires.getTime(), previous?.expires ?? 0),
      });
      unlist(userId, (r) => r.sessionId === except);
    },
    async recordSession(record) {
      if (record.expires.getTime() <= Date.now()) return;
      seen.add(record.userId);
      let stored: RevocationSessionRecord = structuredClone(record);
      if (bug === "keeps a record's dates to the second") {
        stored = {
          ...stored,
          expires: toSecond(stored.expires)!,
          createdAt: toSecond(stored.createdAt),
          lastSeenAt: toSecond(stored.lastSeenAt),
        };
      }
      const list = [...(records.get(record.userId) ?? [])];
      if (bug === "reads and writes a user's records in two steps") await tick();
      const at = list.findIndex((r) => r.sessionId === record.sessionId);
      if (at === -1) list.push(stored);
      else if (bug === "replaces a record recorded again, undefined fields too") list[at] = stored;
      else {
        const given = Object.entries(stored).filter(([, value]) => value !== undefined);
        list[at] = { ...list[at]!, ...Object.fromEntries(given) };
      }
      records.set(record.userId, list);
    },
    async listSessions(userId) {
      const now = Date.now();
      return (records.get(userId) ?? []).filter((r) => {
        if (bug !== "lists expired sessions" && r.expires.getTime() <= now) return false;
        if (bug === "unlists a session only when revoking it") return true;
        if (bug !== "lists sessions revoked by id" && revokedById(userId, r.sessionId, now)) {
          return false;
        }
        const issuedAt = Math.floor((r.createdAt?.getTime() ?? 0) / 1000);
        const { covered, spared } = endedByEpoch(userId, r.sessionId, issuedAt, now);
        return bug === "lists sessions an epoch ended" || !covered || spared;
      });
    },
  };
}

const names = caseNames(suite);
const [unknown, byId, opaque, atOrBefore, spares, legacy, addUp, byIdStays, holds] = names;
const [listed, recordedAgain, unlistedById, unlistedByEpoch, afterRevocation, expired] =
  names.slice(9);
const [racingRevocations, racingEpochs, racingRecords] = names.slice(15);

/** Each bug, and the case that must fail for it. */
const caught: [Bug, string | undefined][] = [
  ["answers revoked for a user it has never seen", unknown],
  ["keys revocations by session id alone", byId],
  ["joins the user and session ids with a colon", opaque],
  ["leaves out sessions issued in the epoch's own second", atOrBefore],
  ["stores a missing exception as the empty id", atOrBefore],
  ["ignores the exception", spares],
  ["spares legacy when the exception names it", legacy],
  ["lets a later revokeUser move the epoch back", addUp],
  ["lets the exception undo a revocation by id", byIdStays],
  ["lets a later revocation shorten an earlier one", holds],
  ["keeps a record's dates to the second", listed],
  ["replaces a record recorded again, undefined fields too", recordedAgain],
  ["lists sessions revoked by id", unlistedById],
  ["lists sessions an epoch ended", unlistedByEpoch],
  ["unlists a session only when revoking it", afterRevocation],
  ["lists expired sessions", expired],
  ["reads and writes revocations in two steps", racingRevocations],
  ["reads and writes the epoch in two steps", racingEpochs],
  ["reads and writes a user's records in two steps", racingRecords],
];

describe("the revocation store suite", () => {
  test("has the 18 cases this test names, in order", () => {
    expect(names).toHaveLength(18);
    expect(new Set(caught.map(([, name]) => name))).toEqual(new Set(names));
  });

  test.each(names)("a store without a bug passes: %s", async (name) => {
    await runCase(suite, toyStore(), name);
  });

  test.each(caught)("a store that %s fails: %s", async (bug, name) => {
    await expect(runCase(suite, toyStore(bug), name!)).rejects.toThrow();
  });
});
