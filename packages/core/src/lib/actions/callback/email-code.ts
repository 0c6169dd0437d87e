/**
 * POST /callback/<email provider> with `code`: redeems an emailed code in the browser that asked
 * for it. A wrong code goes back to the verify-request page and counts against the code; the
 * last allowed wrong try deletes it, so even the right code fails after that.
 */
import type { Context } from "../../context.js";
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
} from "../../email/code.js";
import { type EmailInternalProvider, tokenSecrets } from "../../email/signin.js";
import { Verification } from "../../errors.js";
import { redirectResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { Adapter } from "../../types/models.js";
import { pageUrl } from "../pages.js";

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
 * The address the code proves, or the redirect back to the verify-request page. A right code
 * spends itself and the link of the same email.
 */
export async function redeemCode(
  ctx: Context,
  provider: EmailInternalProvider,
): Promise<{ identifier: string } | ResponseInternal> {
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
  const store = ctx.config.rateLimitStore;
  const key = await triesKey(binding);
  const tries = await store.peek(key);
  if (tries && tries.count >= MAX_CODE_TRIES) {
    forgetBinding(ctx);
    return refuse(ctx, provider, "code_unusable", "The sign-in code had too many wrong tries");
  }
  const typed = normalizeCodeInput(ctx.req.body?.code, shape);
  if (!(await isRightCode(ctx, provider, binding, typed))) {
    const counted = await store.hit(key, Math.max(1000, binding.expires - Date.now()));
    if (counted.count < MAX_CODE_TRIES) {
      return refuse(ctx, provider, "wrong_code", "The sign-in code is wrong");
    }
    forgetBinding(ctx);
    await adapter.useVerificationToken({ identifier: binding.identifier, token: binding.codeHash });
    return refuse(ctx, provider, "code_unusable", "The last wrong sign-in code invalidated it");
  }
  forgetBinding(ctx);
  const found = await adapter.useVerificationToken({
    identifier: binding.identifier,
    token: binding.codeHash,
  });
  if (!found || found.expires.valueOf() < Date.now()) {
    return refuse(
      ctx,
      provider,
      "code_unusable",
      "The sign-in code was used, invalidated or expired",
    );
  }
  await store.reset(key);
  // One email, one sign-in: its link stops working too.
  await adapter.useVerificationToken({ identifier: binding.identifier, token: binding.linkHash });
  return { identifier: found.identifier };
}
