/**
 * The signed-in user's two-factor routes, JSON for `fetch` clients and pages for browsers:
 *
 * - GET /two-factor: whether it is on and how many backup codes are left (the settings page);
 * - POST /two-factor/enroll: a new secret, pending, with its `otpauth://` URI and QR code; needs a
 *   sign-in from the last ten minutes (a stolen session must not add a factor that locks the
 *   owner out). Nothing is on until the first correct code:
 * - POST /two-factor/confirm (`code`): turns it on, and answers the backup codes, once; the
 *   code's time step is spent (it does not open a sign-in afterwards);
 * - POST /two-factor/backup-codes (`code`): a new set, replacing every old code;
 * - POST /two-factor/disable (`code` or `backupCode`): turns it off, and ends every trusted browser;
 * - POST /two-factor/forget-browser (`id`, or `all`): ends the trust of one browser, or of all
 *   (./trust.ts). GET /two-factor lists them; the list shows no address and no cookie.
 *
 * Every code is counted before it is checked (./limits.ts) and spent as it is accepted
 * (./prove.ts); the security log records each change.
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { RateLimited } from "../../errors.js";
import { htmlResult, jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import { identifySession, type SessionRef } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import type { Adapter, AdapterUser } from "../../types/models.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { signedInWithin } from "../step-up/fresh-proof.js";
import { logRefusal, optionsOf, refusalJson, routeUrl, settingsUrl, wantsJson } from "./answer.js";
import { generateBackupCodes, hashBackupCode } from "./backup-codes.js";
import { BACKUP_CODES_EVENT, DISABLED_EVENT, ENABLED_EVENT } from "./events.js";
import { countAccountTry, countUserTry } from "./limits.js";
import { renderBackupCodesPage, renderEnrolPage, renderSettingsPage } from "./pages.js";
import { openTotpSecret, type ProofOutcome, proveSecondFactor } from "./prove.js";
import { qrSvg } from "./qr.js";
import { sealSecret } from "./secret-box.js";
import { newGeneration, readTwoFactor, startEnrolment, type TwoFactorRecord } from "./store.js";
import { generateTotpSecret, otpauthUri } from "./totp.js";
import { forgetTrustCookie, forgetTrusted, listTrustedBrowsers, readTrustCookie } from "./trust.js";

/** How recent a sign-in must be to enrol, in seconds. */
export const RECENT_SIGN_IN = 10 * 60;

interface SignedIn {
  ref: SessionRef;
  user: AdapterUser;
}

async function signedIn(ctx: Context): Promise<SignedIn | null> {
  const ref = await identifySession(ctx);
  if (!ref) return null;
  const user = await (ctx.config.adapter as Required<Adapter>).getUser(ref.userId);
  return user ? { ref, user } : null;
}

/** Not signed in: a JSON 401, or the sign-in page, which comes back to the settings. */
function signInFirst(ctx: Context, json: boolean): ResponseInternal {
  if (json)
    return jsonResult({ error: "Unauthenticated", message: "Sign in first." }, 401, noStore);
  const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`;
  return redirectResult(pageUrl(ctx, page, { callbackUrl: settingsUrl(ctx) }));
}

/** The signed-in user of a request (CSRF checked first for a POST), or the answer to one that is not. */
async function begin(ctx: Context): Promise<SignedIn | ResponseInternal> {
  if (ctx.req.method === "POST") await requireCsrf(ctx);
  return (await signedIn(ctx)) ?? signInFirst(ctx, wantsJson(ctx));
}

const isAnswer = (value: SignedIn | ResponseInternal): value is ResponseInternal =>
  !("user" in value && "ref" in value);

async function settingsPage(
  ctx: Context,
  user: AdapterUser,
  extra: { error?: string; message?: string } = {},
  status = 200,
): Promise<ResponseInternal> {
  const [{ token }, record, siteUrl] = await Promise.all([
    ctx.csrf(),
    readTwoFactor(ctx, user.id),
    ctx.callbackUrl(),
  ]);
  const html = renderSettingsPage({
    siteUrl,
    trustedBrowsers: await listTrustedBrowsers(ctx, user.id, record),
    forgetAction: routeUrl(ctx, "forget-browser"),
    enabled: record?.enabled ?? false,
    backupCodesLeft: record?.enabled ? record.backupCodes.length : 0,
    digits: optionsOf(ctx).params.digits,
    csrfToken: token,
    enrollAction: routeUrl(ctx, "enroll"),
    disableAction: routeUrl(ctx, "disable"),
    backupCodesAction: routeUrl(ctx, "backup-codes"),
    theme: ctx.config.theme,
    ...extra,
  });
  return htmlResult(html, status);
}

/** A refusal: JSON, or the settings page with the message. */
async function refuse(
  ctx: Context,
  user: AdapterUser,
  error: string,
  message: string,
  status = 400,
): Promise<ResponseInternal> {
  if (wantsJson(ctx)) return refusalJson(ctx, error, message, status);
  logRefusal(ctx, error);
  return settingsPage(ctx, user, { error: message }, status);
}

/** Counts the try of a code (before it is checked); throws `RateLimited` past the limit. */
async function countTry(ctx: Context, user: AdapterUser): Promise<void> {
  const max = optionsOf(ctx).maxAttempts;
  const wait = Math.max(
    await countUserTry(ctx, user.id, max),
    await countAccountTry(ctx, user.id, max),
  );
  if (wait > 0) throw new RateLimited("Too many two-factor codes", wait);
}

/** The refusal of a proof that failed. */
function proofRefusal(ctx: Context, user: AdapterUser, outcome: ProofOutcome & { ok: false }) {
  if (outcome.reason === "none") {
    return refuse(ctx, user, "NoTwoFactor", "Two-factor sign-in is not on for this account.");
  }
  return refuse(ctx, user, "WrongCode", "That code is wrong or was used already.");
}

async function newBackupCodes(ctx: Context) {
  const codes = generateBackupCodes(optionsOf(ctx).backupCodes);
  return { codes, hashes: await Promise.all(codes.map(hashBackupCode)) };
}

function codesAnswer(ctx: Context, status: string, codes: string[]): ResponseInternal {
  if (wantsJson(ctx)) return jsonResult({ status, backupCodes: codes }, 200, noStore);
  const html = renderBackupCodesPage({
    codes,
    continueUrl: settingsUrl(ctx),
    theme: ctx.config.theme,
  });
  const result = htmlResult(html);
  result.headers = { ...result.headers, "Cache-Control": "private, no-cache, no-store" };
  return result;
}

/** GET /two-factor. */
export async function settings(ctx: Context): Promise<ResponseInternal> {
  const found = await begin(ctx);
  if (isAnswer(found)) return found;
  if (!wantsJson(ctx)) return settingsPage(ctx, found.user);
  const record = await readTwoFactor(ctx, found.user.id);
  return jsonResult(await settingsJson(ctx, found.user.id, record), 200, noStore);
}

/** The settings as JSON: on or off, backup codes left, trusted browsers. */
async function settingsJson(ctx: Context, userId: string, record: TwoFactorRecord | null) {
  const enabled = record?.enabled ?? false;
  const backupCodesLeft = enabled && record ? record.backupCodes.length : 0;
  const trustedBrowsers = await listTrustedBrowsers(ctx, userId, record);
  return { enabled, backupCodesLeft, trustedBrowsers };
}

/** Whether a body field asks for everything (a form's `1`, or JSON's `true`). */
const isAll = (value: unknown) => value === "1" || value === "true" || value === true;

/** POST /two-factor/forget-browser. */
export async function forgetBrowser(ctx: Context): Promise<ResponseInternal> {
  const found = await begin(ctx);
  if (isAnswer(found)) return found;
  const { user } = found;
  const body = ctx.req.body ?? {};
  const all = isAll(body.all);
  const id = typeof body.id === "string" ? body.id : "";
  if (!all && !/^[0-9a-f]{32}$/.test(id)) {
    return refuse(ctx, user, "InvalidTrustedBrowser", "Say which browser to forget.");
  }
  if (!(await forgetTrusted(ctx, user.id, all ? null : id))) {
    return refuse(ctx, user, "UnknownTrustedBrowser", "That browser is not trusted.", 404);
  }
  const mine = await readTrustCookie(ctx);
  if (mine && mine.userId === user.id && (all || mine.id === id)) {
    ctx.setCookies.push(forgetTrustCookie(ctx));
  }
  const message = all
    ? "No browser skips the code any more."
    : "That browser will be asked for a code again.";
  if (wantsJson(ctx)) {
    const record = await readTwoFactor(ctx, user.id);
    const status = all ? "trustedBrowsersForgotten" : "trustedBrowserForgotten";
    const { trustedBrowsers } = await settingsJson(ctx, user.id, record);
    return jsonResult({ status, message, trustedBrowsers }, 200, noStore);
  }
  return settingsPage(ctx, user, { message });
}

/** The site's host name, as an issuer may be written (an IPv6 address loses its colons). */
const defaultIssuer = (ctx: Context) => new URL(ctx.origin).hostname.replace(/[[\]:]/g, "");

/** POST /two-factor/enroll. */
export async function enroll(ctx: Context): Promise<ResponseInternal> {
  const found = await begin(ctx);
  if (isAnswer(found)) return found;
  if (ctx.req.method !== "POST") return settingsPage(ctx, found.user);
  const { user, ref } = found;
  if (!signedInWithin(ref, RECENT_SIGN_IN)) {
    return refuse(
      ctx,
      user,
      "ReauthenticationRequired",
      "Sign in again, then set up two-factor sign-in within ten minutes.",
      403,
    );
  }
  const options = optionsOf(ctx);
  const secret = generateTotpSecret();
  const sealed = await sealSecret(ctx.config.secrets, secret, { context: user.id });
  if (!(await startEnrolment(ctx, user.id, sealed, options.params))) {
    return refuse(ctx, user, "TwoFactorEnabled", "Two-factor sign-in is already on.");
  }
  const uri = otpauthUri({
    issuer: options.issuer ?? defaultIssuer(ctx),
    account: user.email || user.name || user.id,
    secret,
    ...options.params,
  });
  const svg = await qrSvg(uri, { label: "QR code for your authenticator app" });
  if (wantsJson(ctx)) {
    return jsonResult({ status: "enrolmentStarted", secret, uri, qrSvg: svg }, 200, noStore);
  }
  const { token } = await ctx.csrf();
  const html = renderEnrolPage({
    action: routeUrl(ctx, "confirm"),
    csrfToken: token,
    secret,
    qrSvg: svg,
    digits: options.params.digits,
    theme: ctx.config.theme,
  });
  const result = htmlResult(html);
  result.headers = { ...result.headers, "Cache-Control": "private, no-cache, no-store" };
  return result;
}

/** POST /two-factor/confirm. */
export async function confirm(ctx: Context): Promise<ResponseInternal> {
  const found = await begin(ctx);
  if (isAnswer(found)) return found;
  const { user } = found;
  await countTry(ctx, user);
  const { codes, hashes } = await newBackupCodes(ctx);
  const outcome = await proveSecondFactor(
    ctx,
    user.id,
    { code: ctx.req.body?.code },
    {
      pending: true,
      accept: (record) => !record.enabled,
      also: { enabled: true, backupCodes: hashes },
    },
  );
  if (!outcome.ok) {
    if (outcome.reason === "refused") {
      return refuse(ctx, user, "TwoFactorEnabled", "Two-factor sign-in is already on.");
    }
    if (outcome.reason === "none") {
      return refuse(ctx, user, "NoEnrolment", "Start the set-up first: it makes the code to scan.");
    }
    if (!wantsJson(ctx)) return enrolAgain(ctx, user);
    return proofRefusal(ctx, user, outcome);
  }
  await recordSecurityEvent(ctx, { userId: user.id, type: ENABLED_EVENT });
  return codesAnswer(ctx, "twoFactorEnabled", codes);
}

/** The enrolment page again, after a wrong first code (the same pending secret). */
async function enrolAgain(ctx: Context, user: AdapterUser): Promise<ResponseInternal> {
  logRefusal(ctx, "WrongCode");
  const record = await readTwoFactor(ctx, user.id);
  if (!record) return settingsPage(ctx, user);
  const options = optionsOf(ctx);
  const secret = await openTotpSecret(ctx, user.id, record);
  const uri = otpauthUri({
    issuer: options.issuer ?? defaultIssuer(ctx),
    account: user.email || user.name || user.id,
    secret,
    ...record.params,
  });
  const { token } = await ctx.csrf();
  const html = renderEnrolPage({
    action: routeUrl(ctx, "confirm"),
    csrfToken: token,
    secret,
    qrSvg: await qrSvg(uri, { label: "QR code for your authenticator app" }),
    digits: record.params.digits,
    error: "That code is wrong. Check the app's clock and enter the code it shows now.",
    theme: ctx.config.theme,
  });
  return htmlResult(html, 400);
}

/** POST /two-factor/backup-codes. */
export async function regenerateBackupCodes(ctx: Context): Promise<ResponseInternal> {
  const found = await begin(ctx);
  if (isAnswer(found)) return found;
  const { user } = found;
  await countTry(ctx, user);
  const { codes, hashes } = await newBackupCodes(ctx);
  const outcome = await proveSecondFactor(
    ctx,
    user.id,
    { code: ctx.req.body?.code },
    { also: { backupCodes: hashes } },
  );
  if (!outcome.ok) return proofRefusal(ctx, user, outcome);
  await recordSecurityEvent(ctx, { userId: user.id, type: BACKUP_CODES_EVENT });
  return codesAnswer(ctx, "backupCodesRegenerated", codes);
}

/** POST /two-factor/disable. */
export async function disable(ctx: Context): Promise<ResponseInternal> {
  const found = await begin(ctx);
  if (isAnswer(found)) return found;
  const { user } = found;
  await countTry(ctx, user);
  const body = ctx.req.body ?? {};
  const backup = typeof body.backupCode === "string" && body.backupCode !== "";
  const outcome = await proveSecondFactor(
    ctx,
    user.id,
    backup ? { backupCode: body.backupCode } : { code: body.code },
    // Every trusted browser ends with it; a new enrolment starts another generation.
    {
      also: {
        sealed: "",
        enabled: false,
        backupCodes: [],
        generation: newGeneration(),
        trusted: [],
      },
    },
  );
  if (!outcome.ok) return proofRefusal(ctx, user, outcome);
  await recordSecurityEvent(ctx, { userId: user.id, type: DISABLED_EVENT });
  const message = "Two-factor sign-in is off.";
  if (wantsJson(ctx)) return jsonResult({ status: "twoFactorDisabled", message }, 200, noStore);
  return settingsPage(ctx, user, { message });
}
