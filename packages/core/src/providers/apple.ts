/**
 * Sign in with Apple (OpenID Connect, `response_mode=form_post`, a signed JWT as client secret).
 * @module
 */
import { processEnv } from "../lib/env.js";
import { customFetch } from "../lib/symbols.js";
import type { OAuthConfig } from "../lib/types/providers.js";

/** Apple sends some booleans as the strings `"true"` and `"false"`. */
export type AppleBoolean = boolean | "true" | "false";

/**
 * The `user` form field Apple posts to the callback on the user's first sign-in only, when the
 * `name` or `email` scope was asked for. Gatehouse passes it to `profile()` as `profile.user`. It is
 * not signed: only its name is used, never its email.
 */
export interface AppleUserField {
  name?: { firstName?: string; middleName?: string; lastName?: string };
  email?: string;
}

/** The claims of Apple's identity token (Apple's "Authenticating users with Sign in with Apple"). */
export interface AppleProfile {
  /** `https://appleid.apple.com`. */
  iss: string;
  /** The client id (Services ID) the token is for. */
  aud: string;
  exp: number;
  iat: number;
  /** The user's stable id for this team. */
  sub: string;
  nonce?: string;
  nonce_supported?: boolean;
  at_hash?: string;
  c_hash?: string;
  auth_time?: number;
  /** The user's address, or a private relay address (`…@privaterelay.appleid.com`). */
  email?: string;
  email_verified?: AppleBoolean;
  /** Whether `email` is a private relay address. */
  is_private_email?: AppleBoolean;
  /** 0 unsupported, 1 unknown, 2 likely real. */
  real_user_status?: 0 | 1 | 2;
  /** The user's id under the previous team, after an app transfer. */
  transfer_sub?: string;
  /** The `user` form field of the first sign-in (see {@link AppleUserField}). */
  user?: AppleUserField;
  [claim: string]: unknown;
}

/** What {@link createAppleClientSecret} signs with. */
export interface AppleKeyOptions {
  /** The 10-character Team ID: the secret's `iss`. */
  teamId: string;
  /** The 10-character id of the Sign in with Apple key: the secret's `kid` header. */
  keyId: string;
  /** The key's `.p8` file contents: a PKCS#8 PEM of a P-256 key. */
  privateKey: string;
  /** The client id (Services ID): the secret's `sub`. */
  clientId: string;
  /** Lifetime of each secret in seconds. Default 86400; Apple allows at most 15777000 (6 months). */
  ttl?: number;
  /** The clock, in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

/** Options of {@link Apple}. */
export interface AppleOptions extends Partial<Omit<OAuthConfig<AppleProfile>, "type">> {
  /** Team ID. Default `AUTH_APPLE_TEAM_ID`. */
  teamId?: string;
  /** Key ID. Default `AUTH_APPLE_KEY_ID`. */
  keyId?: string;
  /** The key's `.p8` PEM (PKCS#8). Default `AUTH_APPLE_PRIVATE_KEY` (`\n` escapes allowed). */
  privateKey?: string;
  /** Lifetime of each made client secret, in seconds. Default 86400, at most 15777000. */
  clientSecretTtl?: number;
  /** Scopes. Default `name email`. */
  scope?: string;
}

/** Apple's issuer. */
export const APPLE_ISSUER = "https://appleid.apple.com";
/** The scope asked for by default. */
export const DEFAULT_APPLE_SCOPE = "name email";
/** Apple refuses a client secret that expires more than this many seconds ahead. */
export const APPLE_MAX_SECRET_TTL = 15_777_000;

/**
 * Stands in the token request for a client secret that Gatehouse signs: the provider's fetch
 * replaces it with a fresh JWT. It never leaves the process.
 */
const SIGNED_SECRET = "gatehouse:apple-signed-client-secret";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#fff" d="M16 2c.2 1.6-.5 3-1.4 4-.9.9-2.2 1.5-3.3 1.4-.2-1.4.5-2.9 1.4-3.8.9-1 2.3-1.6 3.3-1.6zM12 8.6c1 0 2.3-1 3.9-.9 1.5.1 2.8.8 3.6 2-3.2 1.9-2.7 6.4.6 7.7-.7 1.8-1.6 3.4-2.8 4.8-.8.9-1.7 1.1-2.8.6-1-.5-1.9-.5-3 0-1.2.5-2 .3-2.8-.6C5.6 18.9 4.3 14 6.5 10.9c1-1.4 2.5-2.2 3.9-2.2 1 0 1.6.5 1.6-.1z"/></svg>',
  );

/** A client secret lifetime Apple accepts (whole seconds, a minute to 6 months); default a day. */
function checkedTtl(ttl = 86_400): number {
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > APPLE_MAX_SECRET_TTL) {
    throw new RangeError(
      `The Apple client secret lifetime must be 60 to ${APPLE_MAX_SECRET_TTL} seconds`,
    );
  }
  return ttl;
}

/**
 * A maker of Apple client secrets: an ES256 JWT with `iss` the team id, `sub` the client id, `aud`
 * `https://appleid.apple.com`, `iat`, `exp` and the key id in the `kid` header. The secret is
 * cached and a new one made once less than a tenth of its lifetime (at least a minute) is left,
 * so a secret in use never expires. `jose` is loaded on the first call.
 *
 * @example
 * ```ts
 * const secret = createAppleClientSecret({ teamId, keyId, privateKey, clientId: "com.example.web" });
 * const jwt = await secret();
 * ```
 */
export function createAppleClientSecret(options: AppleKeyOptions): () => Promise<string> {
  const ttl = checkedTtl(options.ttl);
  const now = options.now ?? Date.now;
  const margin = Math.max(60, Math.floor(ttl / 10));
  let current: Promise<{ jwt: string; exp: number }> | undefined;
  let exp = 0;
  async function sign(): Promise<{ jwt: string; exp: number }> {
    const { importPKCS8, SignJWT } = await import("jose");
    let key: CryptoKey;
    try {
      key = await importPKCS8(options.privateKey.replace(/\\n/g, "\n").trim(), "ES256");
    } catch (cause) {
      // Never the key itself in the message.
      throw new TypeError("The Apple private key is not a PKCS#8 PEM of a P-256 key", { cause });
    }
    const iat = Math.floor(now() / 1000);
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: options.keyId })
      .setIssuer(options.teamId)
      .setSubject(options.clientId)
      .setAudience(APPLE_ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttl)
      .sign(key);
    return { jwt, exp: iat + ttl };
  }
  return async () => {
    if (!current || Math.floor(now() / 1000) >= exp - margin) {
      const pending = sign();
      current = pending;
      pending.then(
        (made) => {
          if (current === pending) exp = made.exp;
        },
        () => {
          if (current === pending) current = undefined;
        },
      );
      exp = Number.POSITIVE_INFINITY; // concurrent callers share the pending secret
    }
    return (await current).jwt;
  };
}

/** The key material from the options, else from the environment; undefined when incomplete. */
function keyMaterial(options: AppleOptions) {
  const env = processEnv();
  const teamId = options.teamId ?? env.AUTH_APPLE_TEAM_ID;
  const keyId = options.keyId ?? env.AUTH_APPLE_KEY_ID;
  const privateKey = options.privateKey ?? env.AUTH_APPLE_PRIVATE_KEY;
  return teamId && keyId && privateKey ? { teamId, keyId, privateKey } : undefined;
}

/**
 * The Apple provider (Sign in with Apple on the web). Credentials: `AUTH_APPLE_ID` (the Services
 * ID) and either a client secret Gatehouse makes from `AUTH_APPLE_TEAM_ID`, `AUTH_APPLE_KEY_ID` and
 * `AUTH_APPLE_PRIVATE_KEY` (or the `teamId`, `keyId`, `privateKey` options), or a ready-made secret
 * in `AUTH_APPLE_SECRET` (which expires within 6 months). An explicit `clientSecret` option wins,
 * then the key, then `AUTH_APPLE_SECRET`. Register the return URL
 * `<origin><basePath>/callback/apple` (https, not localhost: Apple's rule).
 *
 * Apple answers with a cross-site form POST (`response_mode=form_post`), so the state, nonce and
 * callback-url cookies of the sign-in are `SameSite=None; Secure`. The user's name arrives only on
 * the first sign-in; it is mapped then and kept by the adapter's stored user. Apple has no avatar.
 *
 * @example
 * ```ts
 * Apple({ teamId: "TEAM123456", keyId: "KEY1234567", privateKey: process.env.APPLE_P8 })
 * ```
 */
export default function Apple(options: AppleOptions = {}): OAuthConfig<AppleProfile> {
  const {
    teamId: _teamId,
    keyId: _keyId,
    privateKey: _privateKey,
    clientSecretTtl,
    scope = DEFAULT_APPLE_SCOPE,
    authorization,
    clientSecret,
    [customFetch]: userFetch,
    ...rest
  } = options;
  // A lifetime Apple would refuse is a configuration error, reported now, not at each sign-in.
  if (clientSecretTtl !== undefined) checkedTtl(clientSecretTtl);
  const makers = new Map<string, () => Promise<string>>();
  const secretFor = (clientId: string) => {
    const key = keyMaterial(options);
    if (!key) throw new TypeError("Apple: no team id, key id and private key to sign a secret");
    const id = `${clientId}|${key.teamId}|${key.keyId}`;
    let maker = makers.get(id);
    if (!maker) {
      maker = createAppleClientSecret({ ...key, clientId, ttl: clientSecretTtl });
      makers.set(id, maker);
    }
    return maker();
  };
  const params = typeof authorization === "object" ? authorization.params : undefined;
  return {
    id: "apple",
    name: "Apple",
    issuer: APPLE_ISSUER,
    authorization: {
      ...(typeof authorization === "string" ? { url: authorization } : authorization),
      params: { scope, response_mode: "form_post", ...params },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["nonce", "state"],
    profile(profile) {
      const name = profile.user?.name;
      const parts = [name?.firstName, name?.middleName, name?.lastName]
        .map((part) => (typeof part === "string" ? part.trim() : ""))
        .filter((part) => part !== "");
      return {
        id: profile.sub,
        name: parts.length > 0 ? parts.join(" ") : null,
        email: typeof profile.email === "string" && profile.email !== "" ? profile.email : null,
        image: null,
      };
    },
    style: { bg: "#000000", text: "#ffffff", brandColor: "#000000", logo },
    [customFetch]: (input, init) => appleFetch(input, init, userFetch ?? fetch, secretFor),
    ...rest,
    // Read when the configuration is first used, like the other credentials.
    get clientSecret() {
      if (clientSecret !== undefined) return clientSecret;
      return keyMaterial(options) ? SIGNED_SECRET : processEnv().AUTH_APPLE_SECRET;
    },
    type: "oidc",
  };
}

/** The token request with the placeholder secret replaced by a signed one. */
async function appleFetch(
  input: string | URL | Request,
  init: RequestInit | undefined,
  next: typeof fetch,
  secretFor: (clientId: string) => Promise<string>,
): Promise<Response> {
  const body = init?.body;
  if (!(body instanceof URLSearchParams) || body.get("client_secret") !== SIGNED_SECRET) {
    return next(input, init);
  }
  const form = new URLSearchParams(body);
  form.set("client_secret", await secretFor(form.get("client_id") ?? ""));
  return next(input, { ...init, body: form });
}
