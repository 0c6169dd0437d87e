/**
 * Multi-tenant issuers (Microsoft Entra ID): the discovery document of `common` or
 * `organizations` names the issuer `https://login.microsoftonline.com/{tenantid}/v2.0`, and
 * `consumers` names the fixed tenant of personal accounts. An ID token is then checked against
 * that template with the token's own `tid` put in, never against "any issuer".
 */

/** The tenant aliases that discover to another issuer than their own URL. */
const aliases = new Set(["common", "organizations", "consumers"]);
const placeholder = "{tenantid}";
const tenantId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a discovery document's `issuer` belongs to the configured issuer: equal to it, or
 * (for a tenant alias) the same URL with the alias segment replaced by `{tenantid}` or by a
 * tenant id.
 */
export function discoveredIssuerMatches(configured: string, discovered: string): boolean {
  if (!URL.canParse(configured) || !URL.canParse(discovered)) return false;
  const want = new URL(configured);
  if (new URL(discovered).href === want.href) return true;
  // The placeholder's braces are kept as written: compare the raw path segments.
  const match = /^(https:\/\/[^/]+)(\/.*)?$/.exec(discovered);
  if (!match || match[1] !== want.origin) return false;
  const got = (match[2] ?? "").split("/");
  const expected = want.pathname.split("/");
  if (got.length !== expected.length) return false;
  let replaced = 0;
  for (let i = 0; i < got.length; i++) {
    if (got[i] === expected[i]) continue;
    const alias = expected[i]!.toLowerCase();
    if (!aliases.has(alias) || !(got[i] === placeholder || tenantId.test(got[i]!))) return false;
    replaced++;
  }
  return replaced === 1;
}

/** Whether an issuer is a `{tenantid}` template. */
export function isTenantTemplate(issuer: string): boolean {
  return issuer.includes(placeholder);
}

/** The payload of a compact JWT, unverified (only to read `tid`; the token is validated after). */
function unverifiedPayload(jwt: string): Record<string, unknown> | undefined {
  const part = jwt.split(".")[1];
  if (!part) return undefined;
  try {
    const base64 = part.replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const payload: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof payload === "object" && payload !== null
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The issuer an ID token must name under a `{tenantid}` template: the template with the token's
 * own `tid` (a tenant id) put in. A token without a usable `tid` gets the template itself, which
 * no token names, so it fails the issuer check.
 */
export function issuerForToken(template: string, idToken: unknown): string {
  if (typeof idToken !== "string") return template;
  const tid = unverifiedPayload(idToken)?.tid;
  return typeof tid === "string" && tenantId.test(tid)
    ? template.replace(placeholder, tid)
    : template;
}

/**
 * A token response checked under a `{tenantid}` template: the server metadata with the issuer
 * this response's ID token must name, and the response (its body read once, rebuilt). Any other
 * issuer passes through untouched.
 */
export async function forTenantToken<T extends { issuer: string }>(
  as: T,
  response: Response,
): Promise<{ as: T; response: Response }> {
  if (!isTenantTemplate(as.issuer) || !response.ok) return { as, response };
  const text = await response.text();
  let idToken: unknown;
  try {
    idToken = (JSON.parse(text) as { id_token?: unknown } | null)?.id_token;
  } catch {
    // Not JSON: the token response check reports it.
  }
  const rebuilt = new Response(text, { status: response.status, headers: response.headers });
  return { as: { ...as, issuer: issuerForToken(as.issuer, idToken) }, response: rebuilt };
}
