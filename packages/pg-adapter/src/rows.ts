/**
 * Rows to adapter objects. Drivers differ (`pg` returns `bigint` as a string, PGlite as a
 * number; a custom type parser may turn `timestamptz` into a string), so every typed column is
 * converted here rather than trusted.
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
const date = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const dateOrNull = (value: unknown): Date | null =>
  value === null || value === undefined ? null : date(value);
const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

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

/** Names of the optional account columns, in insert order. */
export const accountFields = Object.keys(accountColumns) as (keyof typeof accountColumns)[];

/** Columns stored as `jsonb`: their values are sent as JSON text. */
export const jsonAccountFields: ReadonlySet<string> = new Set([
  "session_state",
  "authorization_details",
]);

export function toAccount(row: Row): AdapterAccount {
  const account: AdapterAccount = {
    id: text(row.id),
    userId: text(row.userId),
    type: text(row.type) as AdapterAccount["type"],
    provider: text(row.provider),
    providerAccountId: text(row.providerAccountId),
  };
  // An absent optional field stays absent (the contract's optional fields are not nullable).
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

/** How each session-record column is read back. */
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

export function toSession(row: Row): AdapterSession {
  const session: AdapterSession = {
    sessionToken: text(row.sessionToken),
    userId: text(row.userId),
    expires: date(row.expires),
  };
  // A record field is left out when none was stored (a row from before session records, an
  // adapter call without metadata), as Auth.js's contract reads a session: no `null` fields.
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
    credentialBackedUp: row.credentialBackedUp === true,
    transports: textOrNull(row.transports),
  };
}
