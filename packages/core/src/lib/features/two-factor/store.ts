/**
 * Where a user's second factor lives: one account row `{ userId, type: "two-factor", provider:
 * "gatehouse.totp", providerAccountId: <user id> }`, in columns every Auth.js-shaped adapter
 * keeps, so that any adapter with `getAccount`, `linkAccount` and `updateAccount` holds it:
 *
 * - `access_token`: the TOTP secret, sealed (./secret-box.ts: AES-256-GCM under a key derived
 *   from the configured secret, bound to the user's id), never in plain text;
 * - `token_type`: `pending` between enrolment and its first correct code, then `enabled`;
 * - `expires_at`: the time step of the last code accepted (no code is accepted twice);
 * - `scope`: the code parameters the enrolment was made with (`SHA-1 6 30`);
 * - `id_token`: the backup codes, each salted and hashed (./backup-codes.ts), space-separated;
 * - `session_state`: when the user last finished a challenge (ms), which ends older challenges;
 * - `refresh_token`: the row's version. Every write is a compare-and-set on it (the adapter's
 *   `updateAccount` with `ifRefreshToken`), so of two requests that read the same state (the
 *   same code, the same backup code, twice at once) one writes and the other reads again.
 *
 * The row is no way in of its own: it proves nothing about who holds the user (./feature.ts
 * does not list it as a provider), and the sealed secret and the hashes never leave this module.
 */
import type { Context } from "../../context.js";

/** What the store reads: a request's context, or the configuration alone (the server API). */
type Source = Pick<Context, "config">;

import { randomHex } from "../../crypto/hash.js";
import type { Adapter, AdapterAccount } from "../../types/models.js";
import type { TotpAlgorithm } from "./totp.js";

/** The provider id of the row (not a provider of the configuration: no sign-in reaches it). */
export const TOTP_ROW = "gatehouse.totp";

/**
 * The row's type. ./types.ts adds it to the open list; this file is also compiled where that
 * augmentation is not in the program, so the value goes through `string`.
 */
const ROW_TYPE = "two-factor" as string as AdapterAccount["type"];

/** The adapter methods two-factor sign-in needs. */
export const TWO_FACTOR_ADAPTER_METHODS = [
  "getUser",
  "getAccount",
  "linkAccount",
  "updateAccount",
] as const satisfies readonly (keyof Adapter)[];

type Store = Required<Pick<Adapter, (typeof TWO_FACTOR_ADAPTER_METHODS)[number]>> & Adapter;

const storeOf = (ctx: Source): Store => ctx.config.adapter as Store;

/** The code parameters of an enrolment. */
export interface TotpParams {
  algorithm: TotpAlgorithm;
  digits: number;
  period: number;
}

/** A user's second factor as stored. */
export interface TwoFactorRecord {
  /** The sealed TOTP secret. */
  sealed: string;
  enabled: boolean;
  /** The time step of the last accepted code, or null. */
  lastStep: number | null;
  params: TotpParams;
  /** The backup codes' stored forms. */
  backupCodes: string[];
  /** When the user last finished a challenge (ms), or 0. */
  completedAt: number;
  /** The version every write compares. */
  version: string;
}

const ALGORITHMS: readonly string[] = ["SHA-1", "SHA-256", "SHA-512"];

function parseParams(scope: unknown): TotpParams {
  const [algorithm = "", digits = "", period = ""] = String(scope ?? "").split(" ");
  return {
    algorithm: (ALGORITHMS.includes(algorithm) ? algorithm : "SHA-1") as TotpAlgorithm,
    digits: /^[678]$/.test(digits) ? Number(digits) : 6,
    period: /^[1-9]\d{0,3}$/.test(period) ? Number(period) : 30,
  };
}

function parse(row: AdapterAccount | null): TwoFactorRecord | null {
  if (!row || typeof row.access_token !== "string" || row.access_token === "") return null;
  const step = row.expires_at;
  const completed = Number(row.session_state ?? 0);
  return {
    sealed: row.access_token,
    enabled: row.token_type === "enabled",
    lastStep: typeof step === "number" && Number.isSafeInteger(step) ? step : null,
    params: parseParams(row.scope),
    backupCodes: String(row.id_token ?? "")
      .split(" ")
      .filter((code) => code !== ""),
    completedAt: Number.isSafeInteger(completed) ? completed : 0,
    version: typeof row.refresh_token === "string" ? row.refresh_token : "",
  };
}

/** The user's second factor, or null when they have none (or disabled it). */
export async function readTwoFactor(ctx: Source, userId: string): Promise<TwoFactorRecord | null> {
  return parse(await storeOf(ctx).getAccount(userId, TOTP_ROW));
}

/** What a write changes; `undefined` fields stay. */
export interface TwoFactorChange {
  sealed?: string;
  enabled?: boolean;
  lastStep?: number | null;
  params?: TotpParams;
  backupCodes?: string[];
  completedAt?: number;
}

function columns(change: TwoFactorChange): Partial<AdapterAccount> {
  const out: Partial<AdapterAccount> = {};
  if (change.sealed !== undefined) out.access_token = change.sealed;
  if (change.enabled !== undefined) out.token_type = change.enabled ? "enabled" : "pending";
  if (change.lastStep !== undefined) out.expires_at = change.lastStep ?? undefined;
  if (change.params) {
    const { algorithm, digits, period } = change.params;
    out.scope = `${algorithm} ${digits} ${period}`;
  }
  if (change.backupCodes !== undefined) out.id_token = change.backupCodes.join(" ");
  if (change.completedAt !== undefined) out.session_state = String(change.completedAt);
  return out;
}

/**
 * Writes `change` if the row is still at `version` (a compare-and-set): true when written,
 * false when another request changed it first (read it again and decide again).
 */
export async function updateTwoFactor(
  ctx: Source,
  userId: string,
  version: string,
  change: TwoFactorChange,
): Promise<boolean> {
  const written = await storeOf(ctx).updateAccount(
    {
      provider: TOTP_ROW,
      providerAccountId: userId,
      ...columns(change),
      refresh_token: randomHex(16),
    },
    { ifRefreshToken: version },
  );
  return written !== null;
}

/**
 * Starts an enrolment: a pending secret, replacing a pending one (the row is created on the
 * first enrolment). Refused (false) when the user's second factor is already enabled.
 */
export async function startEnrolment(
  ctx: Source,
  userId: string,
  sealed: string,
  params: TotpParams,
): Promise<boolean> {
  const change: TwoFactorChange = {
    sealed,
    enabled: false,
    lastStep: null,
    params,
    backupCodes: [],
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await storeOf(ctx).getAccount(userId, TOTP_ROW);
    if (!row) {
      try {
        await storeOf(ctx).linkAccount({
          userId,
          type: ROW_TYPE,
          provider: TOTP_ROW,
          providerAccountId: userId,
          ...columns(change),
          refresh_token: randomHex(16),
        });
        return true;
      } catch (error) {
        // A concurrent enrolment created it first: read it again.
        if (await storeOf(ctx).getAccount(userId, TOTP_ROW)) continue;
        throw error;
      }
    }
    const current = parse(row);
    if (current?.enabled) return false;
    const version = typeof row.refresh_token === "string" ? row.refresh_token : "";
    if (await updateTwoFactor(ctx, userId, version, change)) return true;
  }
  return false;
}

/**
 * Ends the user's second factor: the secret and the backup codes are cleared (the row stays,
 * empty, so that the next enrolment writes over it). False when the row changed meanwhile.
 */
export function clearTwoFactor(ctx: Source, userId: string, version: string): Promise<boolean> {
  return updateTwoFactor(ctx, userId, version, {
    sealed: "",
    enabled: false,
    lastStep: null,
    backupCodes: [],
  });
}
