/**
 * POST /callback/<email provider> with `code`: redeems an emailed code in the browser that asked
 * for it. Every try counts against the code before it is checked; a wrong code goes back to the
 * verify-request page, and the last allowed wrong try deletes it, so even the right code fails
 * after that.
 */

import { pageUrl } from "../../actions/pages.js";
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { Verification } from "../../errors.js";
import { rateLimitsOf } from "../../features/rate-limit/state.js";
import { redirectResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { Adapter } from "../../types/models.js";
import {
  type CodeBinding,
  codeHash,
  codeShape,
  forgetBinding,
  MAX_CODE_TRIES,
  normalizeCodeInput,
  openBinding,
  sameHash,
  triesKey,
} from "./code.js";
import { type EmailInternalProvider, tokenSecrets } from "./start.js";

/** Why a code did not sign in, as `?code=` on the verify-request page. */
type CodeFailure = "wrong_code" | "code_unusable";

/** Back to the verify-request page with the failure, after one log line (never the code). */
function refuse(
  ctx: Context,
  provider: EmailInternalProvider,
  failure: CodeFailure,
  message: string,
): ResponseInternal {
  ctx.config.logger.warn("client-error", new Verification(message));
  const page = ctx.config.pages.verifyRequest ?? `${ctx.config.basePath}/verify-request`;
  return redirectResult(
    pageUrl(ctx, page, {
      provider: provider.id,
      type: "email",
      error: "Verification",
      code: failure,
    }),
  );
}

/** Whether the typed code is the one bound to this browser, under any secret of the list. */
async function isRightCode(
  ctx: Context,
  provider: EmailInternalProvider,
  binding: CodeBinding,
  typed: string | undefined,
): Promise<boolean> {
  if (typed === undefined) return false;
  for (const secret of tokenSecrets(ctx, provider)) {
    const hash = await codeHash(secret, binding.nonce, binding.identifier, typed);
    if (sameHash(hash, binding.codeHash)) return true;
  }
  return false;
}

/**
 * Counts this try of the code, before it is checked: the number of tries with this one (1 to
 * MAX_CODE_TRIES), or `null` when the code may not be tried any more (too many tries, or its
 * row is gone). An adapter with `countVerificationTokenTry` counts on the code's own row; one
 * without it counts in the rate-limit store, whose `hit` is just as atomic but only shared
 * between app instances when the store is (docs/email.md).
 */
async function countTry(ctx: Context, binding: CodeBinding): Promise<number | null> {
  const { countVerificationTokenTry } = capabilitiesOf(ctx.config);
  if (countVerificationTokenTry) {
    const key = { identifier: binding.identifier, token: binding.codeHash };
    const counted = await countVerificationTokenTry(key, MAX_CODE_TRIES);
    return typeof counted === "number" && counted >= 1 && counted <= MAX_CODE_TRIES
      ? counted
      : null;
  }
  const window = Math.max(1000, binding.expires - Date.now());
  const { count } = await rateLimitsOf(ctx.config).store.hit(await triesKey(binding), window);
  return count <= MAX_CODE_TRIES ? count : null;
}

/**
 * The address the code proves, or the redirect back to the verify-request page. A right code
 * spends itself and the link of the same email.
 */
export async function redeemCode(
  ctx: Context,
  provider: EmailInternalProvider,
): Promise<{ identifier: string; callbackUrl?: string } | ResponseInternal> {
  const shape = codeShape(provider);
  if (!shape) return refuse(ctx, provider, "code_unusable", "This email provider sends no codes");
  const binding = await openBinding(ctx, provider.id);
  if (!binding) {
    return refuse(ctx, provider, "code_unusable", "No sign-in code was asked for in this browser");
  }
  if (binding.expires < Date.now()) {
    forgetBinding(ctx);
    return refuse(ctx, provider, "code_unusable", "The sign-in code has expired");
  }
  const adapter = ctx.config.adapter as Required<Adapter>;
  const tokenKey = { identifier: binding.identifier, token: binding.codeHash };
  // The try is counted before the code is looked at, in one atomic step of the store: of a
  // burst of guesses, only the first MAX_CODE_TRIES are ever compared.
  const tries = await countTry(ctx, binding);
  if (tries === null) {
    forgetBinding(ctx);
    return refuse(
      ctx,
      provider,
      "code_unusable",
      "The sign-in code had too many tries, or is gone",
    );
  }
  const typed = normalizeCodeInput(ctx.req.body?.code, shape);
  if (!(await isRightCode(ctx, provider, binding, typed))) {
    if (tries < MAX_CODE_TRIES) {
      return refuse(ctx, provider, "wrong_code", "The sign-in code is wrong");
    }
    forgetBinding(ctx);
    await adapter.useVerificationToken(tokenKey);
    return refuse(ctx, provider, "code_unusable", "The last wrong sign-in code invalidated it");
  }
  forgetBinding(ctx);
  const found = await adapter.useVerificationToken(tokenKey);
  if (!found || found.expires.valueOf() < Date.now()) {
    return refuse(
      ctx,
      provider,
      "code_unusable",
      "The sign-in code was used, invalidated or expired",
    );
  }
  // One email, one sign-in: its link stops working too.
  await adapter.useVerificationToken({ identifier: binding.identifier, token: binding.linkHash });
  return binding.callbackUrl === undefined
    ? { identifier: found.identifier }
    : { identifier: found.identifier, callbackUrl: binding.callbackUrl };
}
