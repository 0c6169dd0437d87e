/**
 * JWT helpers: encrypt, decrypt and read Gatehouse (and Auth.js) session tokens.
 * @module
 */

export type { GetTokenParams } from "./lib/jwt.js";
export { DEFAULT_MAX_AGE, decode, encode, getToken } from "./lib/jwt.js";
export type { JWTDecodeParams, JWTEncodeParams, JWTOptions } from "./lib/types/jwt.js";
export type { DefaultJWT, JWT } from "./lib/types/models.js";
