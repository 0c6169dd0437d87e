import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import { expect } from "vitest";
import type { AdapterMethod, AdapterTestDb, AdapterTestOptions } from "./options.js";

// A record rather than an array, so that a method added to the contract fails to compile here.
const methodSet: Record<AdapterMethod, true> = {
  createUser: true,
  getUser: true,
  getUserByEmail: true,
  getUserByAccount: true,
  updateUser: true,
  deleteUser: true,
  linkAccount: true,
  unlinkAccount: true,
  getAccount: true,
  updateAccount: true,
  lockAccount: true,
  listAccountsByUserId: true,
  createSession: true,
  getSessionAndUser: true,
  updateSession: true,
  deleteSession: true,
  listSessionsByUserId: true,
  deleteSessionsByUserId: true,
  createVerificationToken: true,
  useVerificationToken: true,
  countVerificationTokenTry: true,
  createAuthenticator: true,
  getAuthenticator: true,
  listAuthenticatorsByUserId: true,
  updateAuthenticatorCounter: true,
  deleteAuthenticator: true,
};

/** Every method of the adapter contract. */
export const adapterMethods = Object.keys(methodSet) as AdapterMethod[];

/**
 * Methods Gatehouse adds to Auth.js's contract and works without (more conservatively): an
 * adapter written for Auth.js lacks them. The suite does not require them; when the adapter has
 * one, the tests that call it run like any other.
 */
export const optionalMethods: ReadonlySet<AdapterMethod> = new Set<AdapterMethod>([
  "listAccountsByUserId",
  "updateAccount",
  "lockAccount",
  "listSessionsByUserId",
  "deleteSessionsByUserId",
  "countVerificationTokenTry",
  "deleteAuthenticator",
]);

/** Every contract method, present, returning a promise; a missing one rejects with advice. */
export type StrictAdapter = {
  [M in AdapterMethod]-?: (
    ...args: Parameters<NonNullable<Adapter[M]>>
  ) => Promise<Awaited<ReturnType<NonNullable<Adapter[M]>>>>;
};

function strict(adapter: Adapter): StrictAdapter {
  const entries = adapterMethods.map((name) => {
    const call = async (...args: unknown[]) => {
      const method: unknown = adapter[name];
      if (typeof method !== "function") throw new Error(missingAdvice([name]));
      return (method as (...a: unknown[]) => unknown).apply(adapter, args);
    };
    return [name, call];
  });
  return Object.fromEntries(entries) as StrictAdapter;
}

/** The failure message for methods the adapter lacks. */
export function missingAdvice(missing: readonly string[]): string {
  const list = missing.map((m) => `adapter.${m}`).join(", ");
  return `${list} ${missing.length === 1 ? "is" : "are"} not implemented. Implement ${missing.length === 1 ? "it" : "them"}, or list ${missing.length === 1 ? "it" : "them"} in the \`skip\` option to leave out the tests that need ${missing.length === 1 ? "it" : "them"}.`;
}

const random = (bytes = 16) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes)));

/** A date `offsetMs` from now, with a non-zero millisecond part so precision loss shows. */
export function dateFromNow(offsetMs: number): Date {
  const date = new Date(Date.now() + offsetMs);
  date.setMilliseconds(321);
  return date;
}
const DAY = 24 * 60 * 60 * 1000;

/** What every test receives: the adapter, the storage readers and fixture builders. */
export interface Context {
  /** The adapter under test; every method returns a promise. */
  a: StrictAdapter;
  /** The adapter as given. */
  raw: Adapter;
  /** The `skip` option. */
  skipped: ReadonlySet<string>;
  /** Whether the adapter has `method` and it is not skipped, for optional extra checks. */
  has(method: AdapterMethod): boolean;
  db: AdapterTestDb;
  /** A fresh id in the adapter's format (for users, and for "unknown id" lookups). */
  id(): string;
  /** A fresh random string, for tokens and provider account ids. */
  unique(): string;
  newUser(overrides?: Partial<AdapterUser>): AdapterUser;
  /** Creates a fresh user and returns what `createUser` returned. */
  createUser(overrides?: Partial<AdapterUser>): Promise<AdapterUser>;
  newAccount(userId: string, overrides?: Partial<AdapterAccount>): AdapterAccount;
  newSession(userId: string): AdapterSession;
  newVerificationToken(): VerificationToken;
  /** Links a WebAuthn account for a fresh credential and creates its authenticator. */
  createAuthenticator(userId: string): Promise<AdapterAuthenticator>;
}

export function createContext(options: AdapterTestOptions): Context {
  const id = options.id ?? (() => crypto.randomUUID());
  const unique = () => random().toString("hex");
  const skipped = new Set(options.skip);
  const ctx: Context = {
    a: strict(options.adapter),
    raw: options.adapter,
    skipped,
    has: (method) => typeof options.adapter[method] === "function" && !skipped.has(method),
    db: options.db ?? {},
    id,
    unique,
    newUser: (overrides) => {
      const tag = unique();
      return {
        id: id(),
        email: `gatehouse-${tag}@example.com`,
        emailVerified: dateFromNow(-DAY),
        name: `Test User ${tag.slice(0, 8)}`,
        image: `https://example.com/avatars/${tag}.png`,
        ...overrides,
      };
    },
    async createUser(overrides) {
      const input = ctx.newUser(overrides);
      const user = await ctx.a.createUser(input);
      expectRow(user, input, "createUser's return value", { ignore: ["id"] });
      return user;
    },
    newAccount: (userId, overrides) => ({
      userId,
      type: "oauth",
      provider: "gatehouse-test",
      providerAccountId: unique(),
      access_token: unique(),
      refresh_token: unique(),
      id_token: `${unique()}.${unique()}.${unique()}`,
      expires_at: Math.floor(Date.now() / 1000) + 3600,
      scope: "openid email profile",
      token_type: "bearer",
      ...overrides,
    }),
    newSession: (userId) => ({ sessionToken: unique(), userId, expires: dateFromNow(30 * DAY) }),
    newVerificationToken: () => ({
      identifier: `gatehouse-${unique()}@example.com`,
      token: random(32).toString("hex"),
      expires: dateFromNow(DAY),
    }),
    async createAuthenticator(userId) {
      const credentialID = random(32).toString("base64url");
      await ctx.a.linkAccount(
        ctx.newAccount(userId, {
          type: "webauthn",
          provider: "webauthn",
          providerAccountId: credentialID,
        }),
      );
      const input: AdapterAuthenticator = {
        credentialID,
        credentialPublicKey: random(77).toString("base64"),
        counter: 0,
        credentialBackedUp: false,
        credentialDeviceType: "singleDevice",
        providerAccountId: credentialID,
        transports: "internal,usb",
        userId,
      };
      const created = await ctx.a.createAuthenticator(input);
      expectRow(created, input, "createAuthenticator's return value");
      return created;
    },
  };
  return ctx;
}

function show(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  const json = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${json.length > 160 ? `${json.slice(0, 160)}…` : json}`;
}

/** Asserts that `actual` is a `Date` equal to `expected` to the millisecond. */
export function expectDate(actual: unknown, expected: Date, where: string): void {
  expect(actual, `${where} must be a Date instance, got ${show(actual)}`).toBeInstanceOf(Date);
  expect(
    (actual as Date).getTime(),
    `${where} must equal ${expected.toISOString()} to the millisecond, got ${show(actual)}`,
  ).toBe(expected.getTime());
}

/** Asserts that an absent row came back as `null` (not `undefined`, not an empty object). */
export function expectNull(actual: unknown, where: string): void {
  expect(actual, `${where} must return null when there is no row, got ${show(actual)}`).toBeNull();
}

/**
 * Asserts that `actual` holds every field of `expected` (extra fields, such as a row id, are
 * allowed), with Dates as equal `Date` instances.
 */
export function expectRow<T extends object>(
  actual: unknown,
  expected: T,
  where: string,
  { ignore = [] }: { ignore?: readonly string[] } = {},
): asserts actual is T {
  expect(actual, `${where} must be a row, got ${show(actual)}`).toBeTypeOf("object");
  expect(actual, `${where} must be a row, got null`).not.toBeNull();
  const fields = Object.entries(expected).filter(([key]) => !ignore.includes(key));
  for (const [key, value] of fields) {
    const got = (actual as Record<string, unknown>)[key];
    if (value instanceof Date) expectDate(got, value, `${where}: field "${key}"`);
    else expect(got, `${where}: field "${key}"`).toStrictEqual(value);
  }
}

/** Asserts a value that the contract lets be `void`: either nothing, or the expected row. */
export function expectRowOrNothing<T extends object>(actual: unknown, expected: T, where: string) {
  if (actual !== undefined && actual !== null) expectRow(actual, expected, where);
}

/** One test of the suite: its name, the adapter methods it calls, and its body. */
export interface Case {
  name: string;
  uses: readonly AdapterMethod[];
  run(ctx: Context): Promise<void>;
}

/** A `describe` block of the suite. */
export interface Group {
  title: string;
  cases: readonly Case[];
}

/** Just the lookup key of an account: adapters may pass what they get straight to a query. */
export const accountKey = (account: Pick<AdapterAccount, "provider" | "providerAccountId">) => ({
  provider: account.provider,
  providerAccountId: account.providerAccountId,
});

/** Just the lookup key of a verification token. */
export const tokenKey = (token: Pick<VerificationToken, "identifier" | "token">) => ({
  identifier: token.identifier,
  token: token.token,
});

/**
 * Why `runAdapterTests` skips case `c` for `adapter`, or `undefined` when it runs: its name or a
 * method it calls is in `options.skip`, or it calls an optional method the adapter lacks.
 */
export function skipReason(
  c: Case,
  skip: ReadonlySet<string>,
  adapter: Adapter,
): string | undefined {
  if (skip.has(c.name)) return "its name is in options.skip";
  const method = c.uses.find((m) => skip.has(m));
  if (method) return `it calls adapter.${method}, which is in options.skip`;
  const optional = c.uses.find((m) => optionalMethods.has(m) && typeof adapter[m] !== "function");
  return optional && `it calls adapter.${optional}, which is optional and not implemented`;
}
