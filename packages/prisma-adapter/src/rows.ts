/**
 * Prisma's results to adapter objects. Model queries return `Date` and `bigint`; the raw
 * statements return what the driver gives (SQLite: epoch milliseconds as numbers, MySQL: 0/1 for
 * booleans), so every typed field is converted here rather than trusted. An optional field with
 * nothing stored is left out, as Auth.js's contract reads a row: no `null` for a field never set.
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import type { Row } from "./client.js";

const text = (value: unknown): string => String(value);

/** A moment from a `Date`, epoch milliseconds (number, bigint or digits) or an ISO string. */
export function date(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  const s = String(value);
  if (/^-?\d+$/.test(s)) return new Date(Number(s));
  // MySQL's DATETIME reads back without a zone; the adapter stores UTC there.
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(" ", "T")}Z`);
}
export const dateOrNull = (value: unknown): Date | null =>
  value === null || value === undefined ? null : date(value);
export const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);
export const bool = (value: unknown): boolean =>
  value === true || value === 1 || value === 1n || value === "1";

export function toUser(row: Row): AdapterUser {
  return {
    id: text(row.id),
    name: textOrNull(row.name),
    email: text(row.email ?? ""),
    emailVerified: dateOrNull(row.emailVerified),
    image: textOrNull(row.image),
  };
}

/** The optional token columns of `accounts`, and how each is read back. */
const accountColumns = {
  access_token: text,
  refresh_token: text,
  id_token: text,
  expires_at: Number,
  token_type: text,
  scope: text,
  session_state: (v: unknown) => v,
  authorization_details: (v: unknown) => v,
  error: text,
  // A password account's hash (the password provider), stored and read back as it is given.
  passwordHash: text,
} as const;

/** Names of the optional account columns. */
export const accountFields = Object.keys(accountColumns) as (keyof typeof accountColumns)[];

/** Columns of Prisma type `Json`: clearing one takes Prisma's `DbNull`, not `null`. */
export const jsonAccountFields: ReadonlySet<string> = new Set([
  "session_state",
  "authorization_details",
]);

/** Columns of Prisma type `BigInt`. */
export const bigintAccountFields: ReadonlySet<string> = new Set(["expires_at"]);

export function toAccount(row: Row): AdapterAccount {
  const account: AdapterAccount = {
    id: text(row.id),
    userId: text(row.userId),
    type: text(row.type) as AdapterAccount["type"],
    provider: text(row.provider),
    providerAccountId: text(row.providerAccountId),
  };
  for (const field of accountFields) {
    const value = row[field];
    if (value === null || value === undefined) continue;
    (account as Record<string, unknown>)[field] = accountColumns[field](value);
  }
  return account;
}

/** The session-record columns, nullable: rows from before them read back without them. */
export const SESSION_METADATA = [
  "createdAt",
  "lastSeenAt",
  "provider",
  "providerType",
  "client",
  "ip",
  "providerSid",
  "error",
  "factors",
] as const;

const sessionColumns: Record<(typeof SESSION_METADATA)[number], (value: unknown) => unknown> = {
  createdAt: date,
  lastSeenAt: date,
  provider: text,
  providerType: text,
  client: text,
  ip: text,
  providerSid: text,
  error: text,
  factors: text,
};

/** A session as stored: the contract's fields and the row's own `id`. */
export type StoredSession = AdapterSession & { id: string };

export function toSession(row: Row): StoredSession {
  const session: StoredSession = {
    id: text(row.id),
    sessionToken: text(row.sessionToken),
    userId: text(row.userId),
    expires: date(row.expires),
  };
  for (const field of SESSION_METADATA) {
    const value = row[field];
    if (value === null || value === undefined) continue;
    (session as unknown as Record<string, unknown>)[field] = sessionColumns[field](value);
  }
  return session;
}

export function toVerificationToken(row: Row): VerificationToken {
  return {
    identifier: text(row.identifier),
    token: text(row.token),
    expires: date(row.expires),
  };
}

export function toAuthenticator(row: Row): AdapterAuthenticator {
  return {
    credentialID: text(row.credentialID),
    userId: text(row.userId),
    providerAccountId: text(row.providerAccountId),
    credentialPublicKey: text(row.credentialPublicKey),
    counter: Number(row.counter),
    credentialDeviceType: text(row.credentialDeviceType),
    credentialBackedUp: bool(row.credentialBackedUp),
    transports: textOrNull(row.transports),
  };
}
