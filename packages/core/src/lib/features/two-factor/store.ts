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
 * - `session_state`: a small JSON object, `{ "c": completedAt, "g": generation, "t": trusted }`:
 *   when the user last finished a challenge (ms), which ends older challenges; the generation of
 *   trust, which a trusted browser's cookie must match (a new one ends every trusted browser);
 *   and the trusted browsers, newest first, at most {@link MAX_TRUSTED} (./trust.ts). A row
 *   written before trusted browsers holds the bare number, read as `{ "c": … }`;
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
import type { TWO_FACTOR_ADAPTER_METHODS } from "./requirements.js";
import type { TotpAlgorithm } from "./totp.js";

/** The provider id of the row (not a provider of the configuration: no sign-in reaches it). */
export const TOTP_ROW = "gatehouse.totp";

/**
 * The row's type. ./types.ts adds it to the open list; this file is also compiled where that
 * augmentation is not in the program, so the value goes through `string`.
 */
const ROW_TYPE = "two-factor" as string as AdapterAccount["type"];

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
  /** The generation of trust ("" before the first trusted browser): see ./trust.ts. */
  generation: string;
  /** The trusted browsers, newest first. */
  trusted: TrustedBrowser[];
  /** The version every write compares. */
  version: string;
}

/** A browser the user trusted (no IP address, no cookie value: ./trust.ts). */
export interface TrustedBrowser {
  /** The random id its cookie carries. */
  id: string;
  /** When it was trusted (ms). */
  at: number;
  /** A short description of the browser from its User-Agent (`Firefox 133 on Windows`). */
  client: string;
  /** When its trust ends (ms). */
  exp: number;
}

/** Trusted browsers kept per user: the newest. */
export const MAX_TRUSTED = 10;

/** What `session_state` packs. */
export type RowState = Pick<TwoFactorRecord, "completedAt" | "generation" | "trusted">;

const isTrusted = (value: unknown): value is TrustedBrowser => {
  if (typeof value !== "object" || value === null) return false;
  const { id, at, client, exp } = value as Record<string, unknown>;
  return (
    typeof id === "string" &&
    typeof client === "string" &&
    Number.isSafeInteger(at) &&
    Number.isSafeInteger(exp)
  );
};

/** The packed state of a row; a bare number (a row written before) is its `completedAt`. */
export function parseState(value: unknown): RowState {
  let packed: unknown = value;
  if (typeof value === "string" && value.startsWith("{")) {
    try {
      packed = JSON.parse(value);
    } catch {
      packed = null;
    }
  }
  if (typeof packed === "object" && packed !== null && !Array.isArray(packed)) {
    const { c, g, t } = packed as Record<string, unknown>;
    return {
      completedAt: Number.isSafeInteger(c) ? (c as number) : 0,
      generation: typeof g === "string" ? g : "",
      trusted: Array.isArray(t) ? t.filter(isTrusted).slice(0, MAX_TRUSTED) : [],
    };
  }
  const completed = Number(packed ?? 0);
  return {
    completedAt: Number.isSafeInteger(completed) ? completed : 0,
    generation: "",
    trusted: [],
  };
}

function packState(state: RowState): string {
  const t = state.trusted
    .slice(0, MAX_TRUSTED)
    .map(({ id, at, client, exp }) => ({ id, at, client, exp }));
  return JSON.stringify({ c: state.completedAt, g: state.generation, t });
}

/** A new generation of trust: every trusted browser of an older one is trusted no more. */
export const newGeneration = () => randomHex(8);

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
  return {
    sealed: row.access_token,
    enabled: row.token_type === "enabled",
    lastStep: typeof step === "number" && Number.isSafeInteger(step) ? step : null,
    params: parseParams(row.scope),
    backupCodes: String(row.id_token ?? "")
      .split(" ")
      .filter((code) => code !== ""),
    ...parseState(row.session_state),
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
  generation?: string;
  trusted?: TrustedBrowser[];
}

/** What a write compares and merges into: the version, and the packed state it changes. */
export type TwoFactorBase = RowState & { version: string };

function columns(change: TwoFactorChange, base: RowState): Partial<AdapterAccount> {
  const out: Partial<AdapterAccount> = {};
  if (change.sealed !== undefined) out.access_token = change.sealed;
  if (change.enabled !== undefined) out.token_type = change.enabled ? "enabled" : "pending";
  // `null` clears the column: a field left `undefined` is one `updateAccount` does not touch.
  if (change.lastStep !== undefined) {
    out.expires_at = change.lastStep ?? (null as unknown as undefined);
  }
  if (change.params) {
    const { algorithm, digits, period } = change.params;
    out.scope = `${algorithm} ${digits} ${period}`;
  }
  if (change.backupCodes !== undefined) out.id_token = change.backupCodes.join(" ");
  const { completedAt, generation, trusted } = change;
  if (completedAt !== undefined || generation !== undefined || trusted !== undefined) {
    out.session_state = packState({
      completedAt: completedAt ?? base.completedAt,
      generation: generation ?? base.generation,
      trusted: trusted ?? base.trusted,
    });
  }
  return out;
}

/**
 * Writes `change` if the row is still at `base.version` (a compare-and-set): true when written,
 * false when another request changed it first (read it again and decide again). The packed
 * state's fields that `change` leaves are kept from `base`, the state read with that version.
 */
export async function updateTwoFactor(
  ctx: Source,
  userId: string,
  base: TwoFactorBase,
  change: TwoFactorChange,
): Promise<boolean> {
  const written = await storeOf(ctx).updateAccount(
    {
      provider: TOTP_ROW,
      providerAccountId: userId,
      ...columns(change, base),
      refresh_token: randomHex(16),
    },
    { ifRefreshToken: base.version },
  );
  return written !== null;
}

/** The row's packed state and version, whether or not it holds a second factor; null: no row. */
export async function readRowState(ctx: Source, userId: string): Promise<TwoFactorBase | null> {
  const row = await storeOf(ctx).getAccount(userId, TOTP_ROW);
  if (!row) return null;
  const version = typeof row.refresh_token === "string" ? row.refresh_token : "";
  return { ...parseState(row.session_state), version };
}

/**
 * Starts an enrolment: a pending secret, replacing a pending one (the row is created on the
 * first enrolment). Refused (false) when the user's second factor is already enabled. Each
 * enrolment starts a new generation of trust, with no trusted browser.
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
    generation: newGeneration(),
    trusted: [],
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
          ...columns(change, { completedAt: 0, generation: "", trusted: [] }),
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
    const base = { ...parseState(row.session_state), version };
    if (await updateTwoFactor(ctx, userId, base, change)) return true;
  }
  return false;
}

/** What turning the second factor off writes: no secret, no codes, no trusted browser. */
const cleared = (): TwoFactorChange => ({
  sealed: "",
  enabled: false,
  lastStep: null,
  backupCodes: [],
  generation: newGeneration(),
  trusted: [],
});

/**
 * Ends the user's second factor: the secret and the backup codes are cleared and every trusted
 * browser ends (the row stays, empty, so that the next enrolment writes over it). False when
 * the row changed meanwhile.
 */
export function clearTwoFactor(ctx: Source, userId: string, base: TwoFactorBase): Promise<boolean> {
  return updateTwoFactor(ctx, userId, base, cleared());
}
