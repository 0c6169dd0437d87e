/**
 * Checks a second factor (an authenticator code or a backup code) and spends it in the same
 * compare-and-set write (./store.ts): a code's time step becomes the last one used, a backup
 * code leaves the list. Of two requests with the same code at once, one writes and the other,
 * reading again, finds the code spent. The caller counts the try first (./limits.ts).
 */
import type { Context } from "../../context.js";
import { AuthError } from "../../errors.js";
import { normalizeBackupCode, useBackupCode } from "./backup-codes.js";
import { openSecret } from "./secret-box.js";
import {
  readTwoFactor,
  type TwoFactorChange,
  type TwoFactorRecord,
  updateTwoFactor,
} from "./store.js";
import { verifyTotp } from "./totp.js";

/** What the user typed: a code from the app, or a backup code. */
export interface SecondFactorProof {
  code?: unknown;
  backupCode?: unknown;
}

/** Which factor was proven, or why none was. */
export type ProofOutcome =
  | { ok: true; factor: "totp" | "backupCode"; record: TwoFactorRecord; backupCodesLeft: number }
  | { ok: false; reason: "wrong" | "none" | "refused" };

/** What a proof must also find and write (a challenge's freshness and its completion). */
export interface ProofTerms {
  /** Whether the proof may be spent against this state (false: `refused`). */
  accept?: (record: TwoFactorRecord) => boolean;
  /** Written with the proof, in the same write. */
  also?: TwoFactorChange;
  /** Written with the proof too, made from the state it is written over (a trusted browser). */
  extend?: (record: TwoFactorRecord) => TwoFactorChange;
  /** A pending enrolment counts (its first code turns it on). Default: only an enabled one. */
  pending?: boolean;
}

/** The user's TOTP secret, opened; a secret that does not open is the server's fault. */
export async function openTotpSecret(
  ctx: Context,
  userId: string,
  record: TwoFactorRecord,
): Promise<string> {
  const secret = await openSecret(ctx.config.secrets, record.sealed, { context: userId });
  if (secret === null) {
    throw new AuthError(
      "A two-factor secret could not be opened: was the secret it was sealed with removed from the configured secrets?",
    );
  }
  return secret;
}

/** Checks `proof` against the user's second factor and spends it; see the module comment. */
export async function proveSecondFactor(
  ctx: Context,
  userId: string,
  proof: SecondFactorProof,
  terms: ProofTerms = {},
): Promise<ProofOutcome> {
  const backup = proof.backupCode !== undefined && proof.backupCode !== "";
  if (backup && normalizeBackupCode(proof.backupCode) === null)
    return { ok: false, reason: "wrong" };
  for (let attempt = 0; attempt < 4; attempt++) {
    const record = await readTwoFactor(ctx, userId);
    if (!record || (!record.enabled && !terms.pending)) return { ok: false, reason: "none" };
    if (terms.accept && !terms.accept(record)) return { ok: false, reason: "refused" };
    let change: TwoFactorChange;
    let factor: "totp" | "backupCode";
    if (backup) {
      const used = await useBackupCode(record.backupCodes, proof.backupCode);
      if (!used) return { ok: false, reason: "wrong" };
      change = { backupCodes: used.remaining };
      factor = "backupCode";
    } else {
      const secret = await openTotpSecret(ctx, userId, record);
      const step = await verifyTotp(secret, proof.code, {
        ...record.params,
        lastUsedStep: record.lastStep,
      });
      if (step === null) return { ok: false, reason: "wrong" };
      change = { lastStep: step };
      factor = "totp";
    }
    const written = { ...change, ...terms.also, ...terms.extend?.(record) };
    if (await updateTwoFactor(ctx, userId, record, written)) {
      const backupCodesLeft = (written.backupCodes ?? record.backupCodes).length;
      return { ok: true, factor, record: { ...record, ...written }, backupCodesLeft };
    }
    // Another request wrote first: read again; a code it spent is now refused.
  }
  return { ok: false, reason: "refused" };
}
