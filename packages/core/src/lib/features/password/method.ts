/**
 * The password sign-in method, loaded by the first request to a password provider: the callback
 * signs in, and the provider's routes sign up and verify addresses (./route-signup.ts,
 * ./route-verify.ts ask it).
 */
import type { SignInMethod } from "../../feature.js";
import type { PasswordConfig } from "./options.js";
import { passwordSignIn } from "./sign-in.js";
import { signUp } from "./sign-up.js";
import { verifyEmail } from "./verify.js";

const as = (provider: unknown) => provider as PasswordConfig;

export const passwordMethod: SignInMethod = {
  callback: (ctx, provider) => passwordSignIn(ctx, as(provider)),
  routes: {
    signup: (ctx, provider) => signUp(ctx, as(provider)),
    "verify-email": (ctx, provider) => verifyEmail(ctx, as(provider)),
  },
};
