/**
 * GET and POST /signup/<password provider>. A sign-up is answered the same whether or not the
 * address has an account (status, body, cookies): the owner of a taken address gets an email
 * instead of a new account. A new address gets a user (address unproven), a password account
 * whose password is pending (./store.ts `PENDING`) and an emailed link; the browser that signed
 * up gets the cookie that binds the link to it (./binding.ts).
 */
import { requireCsrf } from "../../actions/csrf.js";
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { hashPassword } from "../../crypto/password.js";
import { normalizeEmail } from "../../email/normalize.js";
import { announce } from "../../moments.js";
import { htmlResult, jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import { limitClient, limitEmail } from "../rate-limit/index.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { mayAdopt } from "./adopt.js";
import { logRefusal, policyOf, refusalJson, wantsJson } from "./answer.js";
import { type Binding, decoy, passwordMark, sealBinding } from "./binding.js";
import { type FieldIssue, readFields } from "./fields.js";
import { sendPasswordEmail } from "./mail.js";
import type { PasswordConfig } from "./options.js";
import { renderSignUpPage } from "./pages.js";
import { checkPassword } from "./policy.js";
import { linkPassword, PENDING, publicAccount, storeOf } from "./store.js";
import { createLink, dropLink, maxAgeOf, verifyUrl } from "./tokens.js";

/** The JSON answer of every accepted sign-up. */
export const SIGN_UP_SENT = {
  status: "verificationSent",
  message: "Check your email: open the link we sent to confirm your address.",
} as const;

interface PageState {
  status?: number;
  error?: string;
  invalid?: "email" | "password" | "fields";
  email?: string;
  values?: Record<string, string>;
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

async function signUpPage(
  ctx: Context,
  provider: PasswordConfig,
  state: PageState,
): Promise<ResponseInternal> {
  const [{ token }, callbackUrl] = await Promise.all([ctx.csrf(), ctx.callbackUrl()]);
  const html = renderSignUpPage({
    providerId: provider.id,
    action: `${ctx.authUrl}/signup/${encodeURIComponent(provider.id)}`,
    csrfToken: token,
    callbackUrl,
    signInUrl: signInUrl(ctx),
    formFields: provider.formFields ?? {},
    minLength: policyOf(provider).minLength,
    theme: ctx.config.theme,
    ...state,
  });
  return htmlResult(html, state.status ?? 200);
}

const signInUrl = (ctx: Context) =>
  pageUrl(ctx, ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`, {});

function issuesMessage(issues: FieldIssue[]): string {
  const named = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  return `Check these fields: ${named.join("; ")}.`;
}

export async function signUp(ctx: Context, provider: PasswordConfig): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") return signUpPage(ctx, provider, {});
  await requireCsrf(ctx);
  const callbackUrl = await ctx.callbackUrl();
  await limitClient(ctx, "email");
  const body = ctx.req.body ?? {};
  const json = wantsJson(ctx);
  const typed = text(body.email) ?? "";
  const values: Record<string, string> = {};
  for (const key of Object.keys(provider.formFields ?? {})) {
    const value = text(body[key]);
    if (value !== undefined) values[key] = value;
  }
  const refuse = (
    error: string,
    message: string,
    invalid: PageState["invalid"],
    extra: Record<string, unknown> = {},
  ) => {
    if (json) return refusalJson(ctx, error, message, extra);
    logRefusal(ctx, error);
    return signUpPage(ctx, provider, {
      status: 400,
      error: message,
      invalid,
      email: typed,
      values,
    });
  };

  let address: string;
  try {
    address = normalizeEmail(typed);
  } catch {
    return refuse("InvalidEmail", "Enter a valid email address.", "email");
  }
  await limitEmail(ctx, address);
  const fields = await readFields(provider.fields, body);
  if (!fields.ok) {
    return refuse("InvalidFields", issuesMessage(fields.issues), "fields", {
      issues: fields.issues,
    });
  }
  const checked = await checkPassword(body.password, policyOf(provider), {
    email: address,
    name: text(fields.value.name) ?? null,
    username: text(fields.value.username) ?? null,
    logger: ctx.config.logger,
  });
  if (!checked.ok) return refuse(checked.error, checked.message, "password");

  // Hashed whether or not the address is taken: the answer takes about as long either way.
  const stored = PENDING + (await hashPassword(checked.password, provider.hash));
  const binding = await register(ctx, provider, address, fields.value, stored, callbackUrl);
  ctx.setCookies.push(await sealBinding(ctx, binding, maxAgeOf(provider)));
  if (json) return jsonResult(SIGN_UP_SENT, 200, noStore);
  return redirectResult(verifyUrl(ctx, provider));
}

/** Creates the account of a new address, or tells the holder of a taken one; the binding. */
async function register(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  fields: Record<string, unknown>,
  stored: string,
  callbackUrl: string,
): Promise<Binding> {
  const store = storeOf(ctx);
  const existing = await store.getUserByEmail(address);
  if (existing) return notifyHolder(ctx, provider, existing, address, callbackUrl);
  let user: AdapterUser;
  try {
    user = await store.createUser({
      ...fields,
      id: randomUUID(),
      email: address,
      emailVerified: null,
    } as AdapterUser);
  } catch (error) {
    // A concurrent sign-up (or sign-in) with this address created its user first.
    const winner = await store.getUserByEmail(address);
    if (!winner) throw error;
    return notifyHolder(ctx, provider, winner, address, callbackUrl);
  }
  try {
    await linkPassword(ctx, provider, user.id, stored);
  } catch (error) {
    // Nothing half-written: a user without its password account would block its address.
    await Promise.resolve(capabilitiesOf(ctx.config).deleteUser?.(user.id)).catch((cause) =>
      ctx.config.logger.error(cause as Error),
    );
    throw error;
  }
  const account = publicAccount(provider, user.id);
  await announce(ctx, "userCreated", { user });
  await announce(ctx, "accountLinked", { user, account, profile: user, isNewUser: true });
  await recordSecurityEvent(ctx, {
    type: "signUp",
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
  const link = await createLink(ctx, provider, address, callbackUrl);
  await send(ctx, provider, address, "verifyEmail", link);
  const secret = ctx.config.secrets[0] as string;
  return { provider: provider.id, link: link.hash, mark: await passwordMark(secret, stored) };
}

/**
 * The address is taken: nothing is created or changed, and its owner is told. When the holder
 * never proved it and holds no other way in, the email carries a link with which the owner
 * confirms the address by choosing a password (a sign-up that went unconfirmed, possibly someone
 * else's). The binding matches no password, so even this browser gets that choice.
 */
async function notifyHolder(
  ctx: Context,
  provider: PasswordConfig,
  holder: AdapterUser,
  address: string,
  callbackUrl: string,
): Promise<Binding> {
  if (!holder.emailVerified && (await mayAdopt(ctx, provider, holder))) {
    const link = await createLink(ctx, provider, address, callbackUrl);
    await send(ctx, provider, address, "accountUnconfirmed", link);
    return { provider: provider.id, link: link.hash, mark: decoy() };
  }
  await sendPasswordEmail(ctx, provider, {
    kind: "accountExists",
    to: address,
    url: signInUrl(ctx),
  });
  return { provider: provider.id, link: decoy(), mark: decoy() };
}

/** Sends a link; a link whose email could not be sent is deleted. */
async function send(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  kind: "verifyEmail" | "accountUnconfirmed",
  link: Awaited<ReturnType<typeof createLink>>,
): Promise<void> {
  try {
    await sendPasswordEmail(ctx, provider, {
      kind,
      to: address,
      url: link.url,
      expires: link.expires,
    });
  } catch (error) {
    await dropLink(ctx, provider, address, link);
    throw error;
  }
}
