/**
 * The redirect proxy's forwarding rule: a callback is sent on only to an origin the
 * configuration lists (`redirectProxyOrigins`), never to whatever origin a valid `state` names.
 */
import { InvalidCheck } from "../../errors.js";

/** Whether `origin` matches `pattern`: an exact origin, or `scheme://*.domain` for one label. */
export function originMatches(origin: string, pattern: string): boolean {
  const wildcard = /^(https?):\/\/\*\.(.+)$/i.exec(pattern.trim());
  if (!wildcard) {
    return URL.canParse(pattern) && new URL(pattern).origin === origin;
  }
  const [, scheme, domain] = wildcard;
  if (!URL.canParse(`${scheme}://${domain}`)) return false;
  const base = new URL(`${scheme}://${domain}`);
  const url = new URL(origin);
  if (url.protocol !== base.protocol || url.port !== base.port) return false;
  const suffix = `.${base.hostname}`;
  if (!url.hostname.endsWith(suffix)) return false;
  const label = url.hostname.slice(0, -suffix.length);
  // Exactly one DNS label: `a.preview.example` matches, `a.b.preview.example` does not.
  return /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(label);
}

/**
 * Where the proxy forwards a callback whose `state` names `stateUrl`: that deployment's callback
 * URL for the same provider, with `params`. Undefined when the state names this deployment.
 * Throws `InvalidCheck` for an origin not on the allow-list or a URL that is not a callback.
 */
export function proxyTarget(
  ownOrigin: string,
  allowed: readonly string[],
  providerId: string,
  stateUrl: string,
  params: URLSearchParams,
): string | undefined {
  if (!URL.canParse(stateUrl)) throw new InvalidCheck("The state names no valid deployment URL");
  const named = new URL(stateUrl);
  if (named.origin === ownOrigin) return undefined;
  if (!allowed.some((pattern) => originMatches(named.origin, pattern))) {
    throw new InvalidCheck(
      "The redirect proxy refused to forward to an origin that is not in redirectProxyOrigins",
    );
  }
  const callbackPath = `/callback/${encodeURIComponent(providerId)}`;
  if (!named.pathname.endsWith(callbackPath)) {
    throw new InvalidCheck("The state names a URL that is not this provider's callback");
  }
  const target = new URL(named.origin);
  target.pathname = named.pathname;
  target.search = params.toString();
  return target.href;
}
