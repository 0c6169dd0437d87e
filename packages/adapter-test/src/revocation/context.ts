import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import { expect } from "vitest";
import { expectDate } from "../context.js";
import type { StoreCase, StoreGroup } from "../store-suite.js";

/** A method of the revocation store contract. */
export type RevocationStoreMethod = keyof RevocationStore;

// A record rather than an array, so that a method added to the contract fails to compile here.
const methodSet: Record<RevocationStoreMethod, true> = {
  check: true,
  revokeSession: true,
  revokeUser: true,
  recordSession: true,
  listSessions: true,
};

/** Every method of the revocation store contract. */
export const revocationMethods = Object.keys(methodSet) as RevocationStoreMethod[];

/** The methods a store may lack: without them, a user's list shows only the current session. */
export const optionalRevocationMethods: ReadonlySet<string> = new Set<RevocationStoreMethod>([
  "recordSession",
  "listSessions",
]);

export const HOUR = 3_600_000;

/** What every revocation test receives. */
export interface RevocationContext {
  /** The store under test; every method is present (a missing one rejects with advice). */
  store: Required<RevocationStore>;
  /** A user id no other test uses. */
  userId(): string;
  /** A fresh session id, shaped like a JWT's `sid` (22 base64url characters). */
  sessionId(): string;
  /** Seconds since the epoch, as `issuedAt` and `at` are given: now, or `ms` since the epoch. */
  seconds(ms?: number): number;
  /** The date `ms` from now. */
  later(ms?: number): Date;
  /** A session record of `userId` with every field set, created a minute ago. */
  record(userId: string, overrides?: Partial<RevocationSessionRecord>): RevocationSessionRecord;
}

export type RevocationCase = StoreCase<RevocationContext> & {
  uses: readonly RevocationStoreMethod[];
};
export type RevocationGroup = StoreGroup<RevocationContext> & {
  cases: readonly RevocationCase[];
};

const random = (bytes: number) =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");

export function revocationContext(store: Required<RevocationStore>): RevocationContext {
  return {
    store,
    userId: () => `gatehouse-test-${crypto.randomUUID()}`,
    sessionId: () => random(16).slice(0, 22),
    seconds: (ms = Date.now()) => Math.floor(ms / 1000),
    later: (ms = HOUR) => new Date(Date.now() + ms),
    record: (userId, overrides = {}) => ({
      userId,
      sessionId: random(16).slice(0, 22),
      // A non-zero millisecond part, so that a store that drops it shows.
      expires: new Date(Math.floor(Date.now() / 1000) * 1000 + HOUR + 321),
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000 + 654),
      lastSeenAt: new Date(Math.floor(Date.now() / 1000) * 1000 - 30_000 + 987),
      provider: "github",
      providerType: "oauth",
      client: "Firefox 133 on Linux",
      ip: "203.0.113.0",
      providerSid: random(12),
      ...overrides,
    }),
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The session ids of a listing, sorted: the contract promises no order. */
export const idsOf = (records: readonly RevocationSessionRecord[]) =>
  records.map((r) => r.sessionId).sort();

/**
 * Asserts that a listed record holds every field of `expected`: Dates as `Date` instances equal
 * to the millisecond; a field given as `null` may come back `null` or absent (every metadata field
 * is optional and nullable).
 */
export function expectRecord(
  actual: RevocationSessionRecord | undefined,
  expected: RevocationSessionRecord,
  where: string,
): void {
  expect(actual, `${where} must be listed`).toBeTypeOf("object");
  const got = actual as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) {
    if (value === undefined) continue;
    if (value instanceof Date) expectDate(got[key], value, `${where}: field "${key}"`);
    else if (value === null) expect(got[key] ?? null, `${where}: field "${key}"`).toBeNull();
    else expect(got[key], `${where}: field "${key}"`).toStrictEqual(value);
  }
}
