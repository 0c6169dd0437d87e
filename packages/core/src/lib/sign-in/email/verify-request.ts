/**
 * GET /verify-request: the "check your email" page, with a form for the emailed code when the
 * provider sends codes and this browser holds the code's binding cookie. A custom page receives
 * `provider`, `type` and, after a failed code, `error` and `code`.
 */

import { pageUrl } from "../../actions/pages.js";
import type { Context } from "../../context.js";
import { renderVerifyRequestPage, type VerifyRequestCodeForm } from "../../pages/index.js";
import { htmlResult, redirectResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { EmailConfig } from "../../types/providers.js";
import { codeShape, openBinding } from "./code.js";

const queryValue = (value: string | undefined) =>
  value !== undefined && value.length <= 64 ? value : undefined;

async function codeForm(ctx: Context): Promise<VerifyRequestCodeForm | undefined> {
  const id = ctx.req.query.provider;
  const found = id === undefined ? undefined : ctx.config.providerById.get(id);
  if (found?.type !== "email") return undefined;
  const shape = codeShape(found as EmailConfig);
  if (!shape) return undefined;
  const binding = await openBinding(ctx, found.id);
  if (!binding) return undefined;
  const { token } = await ctx.csrf();
  return {
    action: ctx.provider(found).callbackUrl,
    csrfToken: token,
    length: shape.length,
    digits: /^[0-9]+$/.test(shape.alphabet),
    email: binding.identifier,
  };
}

/** GET /verify-request */
export async function verifyRequestPage(ctx: Context): Promise<ResponseInternal> {
  const { provider, type } = ctx.req.query;
  const error = queryValue(ctx.req.query.error);
  const code = queryValue(ctx.req.query.code);
  const custom = ctx.config.pages.verifyRequest;
  if (custom) return redirectResult(pageUrl(ctx, custom, { provider, type, error, code }));
  const html = renderVerifyRequestPage({
    siteUrl: ctx.origin,
    theme: ctx.config.theme,
    codeForm: await codeForm(ctx),
    codeError: error === "Verification" ? code : undefined,
  });
  return htmlResult(html);
}
