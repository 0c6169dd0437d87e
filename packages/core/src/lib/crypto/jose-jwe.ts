/**
 * The two pieces of `jose` the WebCrypto engine uses (./jwe.ts imports this module on first use):
 * a bundler keeps only these, not the whole of `jose`.
 */
export { CompactEncrypt, compactDecrypt } from "jose";
