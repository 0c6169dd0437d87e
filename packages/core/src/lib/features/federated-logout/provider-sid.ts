/**
 * The OpenID provider's session id, kept with the session an OAuth sign-in issued, so that a
 * back-channel logout naming it ends exactly that session (docs/sessions.md).
 */
import { decodeJwt } from "jose";
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { readChunked } from "../../cookies.js";
import { AdapterError } from "../../errors.js";
import type { Listener } from "../../moments.js";
import type { Cookie } from "../../types/config.js";
import type { Profile } from "../../types/models.js";
import type { TokenSet } from "../../types/providers.js";

/** Hears `sessionIssued` of OAuth sign-ins (the configuration only passes those). */
export const providerSidListener: Listener = {
  sessionIssued: (ctx, { profile, account, cookies }) =>
    keepProviderSid(ctx, profile ?? {}, (account ?? {}) as TokenSet, cookies),
};

/**
 * The OpenID provider's session id (`sid` of the ID token, already validated), stored with a new
 * database session as its `providerSid` so a back-channel logout naming that sid ends exactly this
 * session. Only adapters that keep session metadata (those that list sessions) get it.
 */
async function keepProviderSid(
  ctx: Context,
  profile: Profile,
  tokens: TokenSet,
  cookies: Cookie[],
): Promise<void> {
  const { session } = ctx.config;
  const { updateSession, listSessions } = capabilitiesOf(ctx.config);
  const store = session.revocation?.store;
  const database = session.strategy === "database";
  if (database ? !updateSession || !listSessions : !store?.recordSession) {
    return;
  }
  let sid: unknown = profile.sid;
  if (sid === undefined && typeof tokens.id_token === "string") {
    try {
      sid = decodeJwt(tokens.id_token).sid;
    } catch {
      return;
    }
  }
  if (typeof sid !== "string" || sid === "") return;
  const name = ctx.cookieOptions.sessionToken.name;
  if (database) {
    const sessionToken = cookies.find((c) => c.name === name)?.value;
    if (sessionToken) await updateSession!({ sessionToken, providerSid: sid });
    return;
  }
  // JWT strategy: the revocation store's record of the new session gets the provider sid (a
  // record's undefined fields keep their value), so a back-channel logout can revoke just it.
  const value = readChunked(Object.fromEntries(cookies.map((c) => [c.name, c.value])), name);
  if (!value) return;
  const token = await ctx.config.jwt.decode({
    token: value,
    secret: ctx.config.secrets,
    salt: name,
  });
  if (typeof token?.sub !== "string" || typeof token.sid !== "string") return;
  if (typeof token.exp !== "number") return;
  try {
    await store!.recordSession!({
      userId: token.sub,
      sessionId: token.sid,
      expires: new Date(token.exp * 1000),
      providerSid: sid,
    });
  } catch (cause) {
    ctx.config.logger.error(
      new AdapterError("The revocation store could not record the provider sid", { cause }),
    );
  }
}
