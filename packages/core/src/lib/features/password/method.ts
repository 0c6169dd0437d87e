/**
 * The password sign-in method, loaded by the first request to a password provider: the callback
 * signs in, and the provider's routes sign up, verify addresses, reset and change passwords,
 * change the address, set and remove a password (./route-*.ts ask it).
 */
import type { SignInMethod } from "../../feature.js";
import { changePassword } from "./change.js";
import { changeEmail } from "./email-change.js";
import type { PasswordConfig } from "./options.js";
import { resetPassword } from "./reset.js";
import { forgotPassword } from "./reset-request.js";
import { removePassword, setPassword } from "./set-password.js";
import { passwordSignIn } from "./sign-in.js";
import { signUp } from "./sign-up.js";
import { verifyEmail } from "./verify.js";

const as = (provider: unknown) => provider as PasswordConfig;

export const passwordMethod: SignInMethod = {
  callback: (ctx, provider) => passwordSignIn(ctx, as(provider)),
  routes: {
    signup: (ctx, provider) => signUp(ctx, as(provider)),
    "verify-email": (ctx, provider) => verifyEmail(ctx, as(provider)),
    "forgot-password": (ctx, provider) => forgotPassword(ctx, as(provider)),
    "reset-password": (ctx, provider) => resetPassword(ctx, as(provider)),
    "change-password": (ctx, provider) => changePassword(ctx, as(provider)),
    "change-email": (ctx, provider) => changeEmail(ctx, as(provider)),
    "set-password": (ctx, provider) => setPassword(ctx, as(provider)),
    "remove-password": (ctx, provider) => removePassword(ctx, as(provider)),
  },
};
