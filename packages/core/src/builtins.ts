/**
 * The built-in sign-in methods and features, installed by the package's entry (./index.ts). This
 * is the one module above the kernel, the methods and the features: the kernel (./lib outside
 * `sign-in/` and `features/`) never imports them, and their code loads when a request first needs
 * it (docs/architecture.md). A bundler that makes one file (a Workers build) inlines every such
 * `import()`, so whatever is listed here is in every app's bundle: a method only its factories'
 * providers need travels with them instead (`providerMethod` in ./lib/provider-method.ts; the
 * WebAuthn entry below is its route and the error for a provider written by hand, the password
 * entry its routes and the check of a configuration that has a password provider).
 */
import { federatedLogoutFeature } from "./lib/features/federated-logout/feature.js";
import { passkeysFeature } from "./lib/features/passkeys/feature.js";
import { passwordFeature } from "./lib/features/password/feature.js";
import { providerTokensFeature } from "./lib/features/provider-tokens/feature.js";
import { rateLimitFeature } from "./lib/features/rate-limit/feature.js";
import { securityLogFeature } from "./lib/features/security-log/feature.js";
import { sessionsFeature } from "./lib/features/sessions/feature.js";
import { twoFactorFeature } from "./lib/features/two-factor/feature.js";
import type { KernelAction } from "./lib/routes/index.js";
import { credentialsMethod } from "./lib/sign-in/credentials/method.js";
import { emailMethod } from "./lib/sign-in/email/method.js";
import { oauthMethod } from "./lib/sign-in/oauth/method.js";
import { webauthnMethod } from "./lib/sign-in/webauthn/method.js";

/** In order: a listener of an earlier feature hears a moment first. */
export const builtins = [
  credentialsMethod,
  emailMethod,
  oauthMethod,
  webauthnMethod,
  rateLimitFeature,
  federatedLogoutFeature,
  providerTokensFeature,
  securityLogFeature,
  sessionsFeature,
  passwordFeature,
  twoFactorFeature,
  passkeysFeature,
] as const;

type FeatureAction = (typeof builtins)[number] extends infer F
  ? F extends { routes: readonly { name: infer N }[] }
    ? N
    : never
  : never;

/** Every action of the HTTP protocol: the kernel's and the built-in features'. */
export type AuthAction = KernelAction | FeatureAction;
