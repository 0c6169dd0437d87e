import type { Context } from "../context.js";
import { InvalidCallbackUrl, SessionStoreUnavailable } from "../errors.js";
import { partsOf } from "../feature.js";
import { announce } from "../moments.js";
import { redirectResult } from "../response.js";
import { endSession } from "../session/index.js";
import { StoreDeadline } from "../session/store-deadline.js";
import type { Cookie, ResponseInternal } from "../types/config.js";
import { requireCsrf } from "./csrf.js";
import { signOutPage } from "./pages.js";
import { signOutUnavailable } from "./signout-unavailable.js";

/**
 * GET /signout shows the confirmation page; POST /signout ends the session and redirects. When the
 * session store cannot end the session in time (retries included), the answer says so instead:
 * see {@link signOutUnavailable}.
 */
export async function signOut(ctx: Context): Promise<ResponseInternal> {
  if (ctx.req.method === "GET") return signOutPage(ctx);
  await requireCsrf(ctx);
  // Resolved before anything ends, but a refused URL is thrown only after the session is gone.
  const callback = ctx.callbackUrl().then(
    (url) => ({ url }),
    (error: unknown) => ({ error }),
  );
  // A provider that cannot be reached (discovery failing, or slow) must not keep the user signed
  // in here: the sign-out goes on locally, with one log line. Its own deadline, so a slow
  // provider leaves the store its full time.
  const { signOutTarget } = partsOf(ctx.config);
  const federated = signOutTarget
    ? await new StoreDeadline()
        .race("the federated sign-out target", signOutTarget(ctx))
        .catch((error: unknown) => {
          ctx.config.logger.error(error as Error);
          return undefined;
        })
    : undefined;
  // One deadline for every store call that ends the session: a store that never answers (a
  // half-open connection) must not hang the sign-out.
  const deadline = new StoreDeadline();
  // End the session first: a refused callbackUrl must not leave the user signed in. The
  // deletions are queued on the context, so they also ride on an error redirect.
  // Listeners that need the session (the security log: whose it was) read it before it ends.
  await announce(ctx, "signingOut", { deadline });
  let ended: Cookie[];
  try {
    ended = await endSession(ctx, deadline);
  } catch (error) {
    if (!(error instanceof SessionStoreUnavailable)) throw error;
    const resolved = await callback;
    return signOutUnavailable(ctx, error, "url" in resolved ? resolved.url : undefined);
  }
  ctx.setCookies.push(...ended);
  await announce(ctx, "signedOut", { deadline });
  const resolved = await callback;
  if ("error" in resolved) throw resolved.error;
  if (!federated) return redirectResult(resolved.url);
  // The provider sends the user back to the callback URL, checked like every callback URL and
  // kept to this site's origin: the provider must not become an open redirect.
  if (new URL(resolved.url).origin !== ctx.origin) {
    throw new InvalidCallbackUrl("post_logout_redirect_uri must be on this site's origin");
  }
  const target = new URL(federated.endpoint);
  if (federated.idToken) target.searchParams.set("id_token_hint", federated.idToken);
  target.searchParams.set("post_logout_redirect_uri", resolved.url);
  target.searchParams.set("client_id", federated.clientId);
  return redirectResult(target.href);
}
