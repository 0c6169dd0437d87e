import type { Awaitable, JWT } from "./models.js";

/** Parameters of {@link encode}. */
export interface JWTEncodeParams<Payload = JWT> {
  /** The claims to encrypt. `iat`, `exp` and `jti` are set by `encode`. */
  token?: Payload;
  /** Key-derivation salt: the session cookie's name for session tokens. */
  salt: string;
  /** The secret, or a list of secrets of which the first encrypts. */
  secret: string | string[];
  /** Lifetime in seconds. Defaults to 30 days. */
  maxAge?: number;
}

/** Parameters of {@link decode}. */
export interface JWTDecodeParams {
  token?: string;
  salt: string;
  /** With a list, the secret whose key matches the token's `kid` decrypts (or each is tried). */
  secret: string | string[];
}

/** Session-token options: `AuthConfig.jwt`. */
export interface JWTOptions {
  /** Lifetime of the session token in seconds. Defaults to `session.maxAge`. */
  maxAge: number;
  encode: (params: JWTEncodeParams) => Awaitable<string>;
  decode: (params: JWTDecodeParams) => Awaitable<JWT | null>;
}
