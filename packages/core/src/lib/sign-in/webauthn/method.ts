/**
 * Passkey (WebAuthn) sign-in (docs/providers.md). Its code comes with the providers: `WebAuthn()`
 * and `Passkey()` carry the method (./declaration.ts), so an app without one bundles none of it.
 * What is installed with the built-ins is the route GET /webauthn-options/<id>, which asks the
 * provider's method, and, for a `type: "webauthn"` provider written by hand (which carries no
 * method), a configuration error that says how to create one.
 */
import type { Feature } from "../../feature.js";
import { notFromFactory } from "./library.js";
import webauthnOptions from "./route-options.js";

export const webauthnMethod = {
  name: "webauthn",
  routes: [webauthnOptions],
  methods: [{ types: ["webauthn"], load: () => Promise.reject(notFromFactory()) }],
} satisfies Feature;
