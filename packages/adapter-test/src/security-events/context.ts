import type { SecurityEvent, SecurityEventStore, SecurityEventType } from "@gatehousejs/core/types";
import { expect } from "vitest";
import type { StoreCase, StoreGroup } from "../store-suite.js";

/** A method of the security-event store contract. */
export type SecurityEventStoreMethod = keyof SecurityEventStore;

// Records rather than arrays, so that a member added to the contract fails to compile here.
const methodSet: Record<SecurityEventStoreMethod, true> = { record: true, list: true, prune: true };
// The event types are an open list: a sign-in method adds its own by declaration merging, and
// they are members only where its module is imported (a whole-repository typecheck, an app that
// uses the method). Spread in, they are checked where they are members and allowed elsewhere.
// The password provider's, and two-factor sign-in's.
const methodTypes = {
  signUp: true,
  passwordResetRequested: true,
  passwordReset: true,
  passwordChanged: true,
  emailChanged: true,
  passwordSet: true,
  passwordRemoved: true,
  twoFactorEnabled: true,
  passkeyRemoved: true,
  twoFactorDisabled: true,
  backupCodeUsed: true,
  backupCodesRegenerated: true,
  twoFactorReset: true,
  stepUpRequired: true,
  trustedBrowserAdded: true,
} as const;
const typeSet: Record<SecurityEventType, true> = {
  signIn: true,
  signInFailed: true,
  signOut: true,
  sessionRevoked: true,
  accountLinked: true,
  emailVerified: true,
  ...methodTypes,
};

/** Every method of the security-event store contract. */
export const securityEventMethods = Object.keys(methodSet) as SecurityEventStoreMethod[];

/** Every event type Gatehouse records. */
export const securityEventTypes = Object.keys(typeSet) as SecurityEventType[];

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

/**
 * The time the suite's events are recorded around: in 2001, so that `prune`, which deletes for
 * every user, is only ever asked to delete events from before 2001 and leaves any real log alone.
 */
export const T0 = Date.UTC(2001, 0, 15, 12, 0, 0, 0);

/** What every security-event test receives. */
export interface SecurityEventContext {
  /** The store under test; every method is present (a missing one rejects with advice). */
  store: SecurityEventStore;
  /** A user id no other test uses. */
  userId(): string;
  /** An event of `userId` at `T0 + offset` ms, with every field set. */
  eventAt(userId: string, offset: number, overrides?: Partial<SecurityEvent>): SecurityEvent;
}

export type SecurityEventCase = StoreCase<SecurityEventContext> & {
  uses: readonly SecurityEventStoreMethod[];
};
export type SecurityEventGroup = StoreGroup<SecurityEventContext> & {
  cases: readonly SecurityEventCase[];
};

export function securityEventContext(store: SecurityEventStore): SecurityEventContext {
  return {
    store,
    userId: () => `gatehouse-test-${crypto.randomUUID()}`,
    eventAt: (userId, offset, overrides = {}) => ({
      id: crypto.randomUUID(),
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
      ...overrides,
    }),
  };
}

/** The offsets from `T0`, in `unit` ms, of listed events, in the order listed. */
export const offsets = (events: readonly SecurityEvent[], unit = MINUTE) =>
  events.map((e) => (e.at.getTime() - T0) / unit);

/**
 * Asserts that a listed event equals `expected` field for field, `at` as a `Date` to the
 * millisecond; an optional field given as `null` or not given may come back `null` or absent.
 */
export function expectEvent(
  actual: SecurityEvent | undefined,
  expected: SecurityEvent,
  where: string,
) {
  expect(actual, `${where} must be listed`).toBeTypeOf("object");
  const got = actual as unknown as Record<string, unknown>;
  expect(got["at"], `${where}: field "at" must be a Date`).toBeInstanceOf(Date);
  expect((got["at"] as Date).getTime(), `${where}: field "at"`).toBe(expected.at.getTime());
  const fields = [
    "id",
    "userId",
    "type",
    "provider",
    "providerType",
    "newClient",
    "client",
    "ip",
    "sessionId",
    "reason",
  ] as const;
  for (const field of fields) {
    expect(got[field] ?? null, `${where}: field "${field}"`).toStrictEqual(expected[field] ?? null);
  }
}
