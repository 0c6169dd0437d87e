/**
 * Password accounts (docs/passwords.md). Installed with the built-ins: the routes
 * `signup/<provider>`, `verify-email/<provider>`, `forgot-password/<provider>`,
 * `reset-password/<provider>`, `change-password/<provider>`, `change-email/<provider>`,
 * `set-password/<provider>` and `remove-password/<provider>`, whose code comes with `Password()`
 * (it carries its method), and, for a configuration with a password provider, the check of what
 * it needs (./requirements.ts), the warning of one that cannot end a user's sessions, and the
 * listener that voids a pending password once another way in proves its address (./void.ts).
 */
import type { ErrorType } from "../../errors.js";
import type { Feature, FeatureError } from "../../feature.js";
import { lazyListener } from "../../moments.js";
import type { Moments } from "../../types/moments.js";
import { checkPasswordConfig, passwordProviders, warnIfSessionsSurvive } from "./requirements.js";
import changePassword from "./route-change.js";
import changeEmail from "./route-change-email.js";
import forgotPassword from "./route-forgot.js";
import removePassword from "./route-remove-password.js";
import resetPassword from "./route-reset.js";
import setPassword from "./route-set-password.js";
import signup from "./route-signup.js";
import verifyEmail from "./route-verify.js";
import { provesNothing } from "./store.js";

const voidPending = lazyListener(
  ["emailVerified"],
  async () => (await import("./void.js")).voidListener,
  // The password's own proofs (the link in the browser that signed up, a secured account) keep it.
  (_name, moment) => (moment as Moments["emailVerified"]).provider.type !== "password",
);

/**
 * The error types the feature raises (./errors.ts has the classes and their `ErrorTypes` member;
 * the declaration lists them here, since it must not reach the modules that add to open lists).
 */
const passwordErrors: readonly FeatureError[] = [
  {
    type: "EmailNotVerified" as string as ErrorType,
    clientSafe: true,
    mistake: true,
    signInMessage:
      "Confirm your email address first: open the link we sent you when you signed up.",
  },
];

export const passwordFeature = {
  name: "password",
  errors: passwordErrors,
  routes: [
    signup,
    verifyEmail,
    forgotPassword,
    resetPassword,
    changePassword,
    changeEmail,
    setPassword,
    removePassword,
  ],
  equip(config) {
    const providers = passwordProviders(config);
    if (providers.length === 0) return undefined;
    checkPasswordConfig(config, providers);
    warnIfSessionsSurvive(config, providers);
    const ids = new Set(providers.map((p) => p.id));
    return {
      listeners: [voidPending],
      // A pending password is no way in: an email link proving the address may adopt the user.
      provesNothing: (account) => provesNothing(account, ids),
    };
  },
} satisfies Feature;
