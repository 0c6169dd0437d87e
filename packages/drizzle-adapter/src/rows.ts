/**
 * Rows as the adapter contract has them. Drizzle maps each column by its mode, but tables the
 * app defines itself may use other modes (a timestamp as a string, a bigint as a string), so
 * every typed field is converted here rather than trusted.
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";

/** A row as Drizzle returns it. */
export type Row = Record<string, unknown>;

const text = (value: unknown): string => String(value);
const absent = (value: unknown): value is null | undefined => value === null || value === undefined;
export const date = (value: unknown): Date =>
  value instanceof Date ? value : new Date(typeof value === "number" ? value : String(value));
export const dateOrNull = (value: unknown): Date | null => (absent(value) ? null : date(value));
export const textOrNull = (value: unknown): string | null => (absent(value) ? null : String(value));
// JSON columns are decoded by their Drizzle column (jsonb, json, text in json mode).
const json = (value: unknown): unknown => value;
const bool = (value: unknown): boolean => value === true || value === 1 || value === "1";

export const USER_FIELDS = ["id", "name", "email", "emailVerified", "image"] as const;

export function toUser(row: Row): AdapterUser {
  return {
    id: text(row.id),
    name: textOrNull(row.name),
    email: text(row.email ?? ""),
    emailVerified: dateOrNull(row.emailVerified),
    image: textOrNull(row.image),
  };
}

/** A user row: the contract's fields, and any column of the app's own table that holds a value. */
export function userOf(row: Row): AdapterUser {
  const user = toUser(row) as unknown as Row;
  for (const [field, value] of Object.entries(row)) {
    if (!(field in user) && value !== null && value !== undefined) user[field] = value;
  }
  return user as unknown as AdapterUser;
}

/** The optional columns of `accounts`, and how each is read back. */
const accountColumns = {
  access_token: text,
  refresh_token: text,
  id_token: text,
  expires_at: Number,
  token_type: text,
  scope: text,
  session_state: json,
  authorization_details: json,
  error: text,
  // A password account's hash (the password provider), stored and read back as it is given.
  passwordHash: text,
} as const;

/** Names of the optional account columns. */
export const ACCOUNT_OPTIONAL = Object.keys(accountColumns) as (keyof typeof accountColumns)[];
export const ACCOUNT_FIELDS = [
  "id",
  "userId",
  "type",
  "provider",
  "providerAccountId",
  ...ACCOUNT_OPTIONAL,
] as const;

export function toAccount(row: Row): AdapterAccount {
  const account: AdapterAccount = {
    id: text(row.id),
    userId: text(row.userId),
    type: text(row.type) as AdapterAccount["type"],
    provider: text(row.provider),
    providerAccountId: text(row.providerAccountId),
  };
  // An absent optional field stays absent (the contract's optional fields are not nullable).
  for (const field of ACCOUNT_OPTIONAL) {
    const value = row[field];
    if (absent(value)) continue;
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
export const SESSION_FIELDS = [
  "id",
  "sessionToken",
  "userId",
  "expires",
  ...SESSION_METADATA,
] as const;

const DATE_METADATA: ReadonlySet<string> = new Set(["createdAt", "lastSeenAt"]);

/** A session as stored: the contract's fields and the row's own `id`. */
export type StoredSession = AdapterSession & { id: string };

export function toSession(row: Row): StoredSession {
  const session: StoredSession = {
    id: text(row.id),
    sessionToken: text(row.sessionToken),
    userId: text(row.userId),
    expires: date(row.expires),
  };
  // A record field is left out when none was stored, as Auth.js's contract reads a session.
  for (const field of SESSION_METADATA) {
    const value = row[field];
    if (absent(value)) continue;
    (session as unknown as Row)[field] = DATE_METADATA.has(field) ? date(value) : text(value);
  }
  return session;
}

export const TOKEN_FIELDS = ["identifier", "token", "expires"] as const;

export function toVerificationToken(row: Row): VerificationToken {
  return {
    identifier: text(row.identifier),
    token: text(row.token),
    expires: date(row.expires),
  };
}

export const AUTHENTICATOR_FIELDS = [
  "credentialID",
  "userId",
  "providerAccountId",
  "credentialPublicKey",
  "counter",
  "credentialDeviceType",
  "credentialBackedUp",
  "transports",
] as const;

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
