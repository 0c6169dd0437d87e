/**
 * The built-in features, installed by the package's entry (./index.ts). This is the one module
 * above both the kernel and the features: the kernel (./lib outside `features/`) never imports a
 * feature, and a feature's code loads when a request first needs it (docs/architecture.md).
 */
import { federatedLogoutFeature } from "./lib/features/federated-logout/feature.js";
import { providerTokensFeature } from "./lib/features/provider-tokens/feature.js";
import { rateLimitFeature } from "./lib/features/rate-limit/feature.js";
import { securityLogFeature } from "./lib/features/security-log/feature.js";
import { sessionsFeature } from "./lib/features/sessions/feature.js";
import type { KernelAction } from "./lib/routes/index.js";

/** In order: a listener of an earlier feature hears a moment first. */
export const builtins = [
  rateLimitFeature,
  federatedLogoutFeature,
  providerTokensFeature,
  securityLogFeature,
  sessionsFeature,
] as const;

type FeatureAction = (typeof builtins)[number] extends infer F
  ? F extends { routes: readonly { name: infer N }[] }
    ? N
    : never
  : never;

/** Every action of the HTTP protocol: the kernel's and the built-in features'. */
export type AuthAction = KernelAction | FeatureAction;
