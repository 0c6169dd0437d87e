/** Default WebAuthn ceremony timeout: 5 minutes, in milliseconds. */
export const DEFAULT_WEBAUTHN_TIMEOUT = 5 * 60 * 1000;
