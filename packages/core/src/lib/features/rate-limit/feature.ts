/**
 * Rate limits (docs/rate-limits.md). The sign-in methods ask them before they verify anything;
 * equipping a configuration only checks its limits, so a malformed one is a configuration error.
 */
import type { Feature } from "../../feature.js";
import { resolveRateLimits } from "./defaults.js";

export const rateLimitFeature = {
  name: "rate-limit",
  equip(config) {
    // Checked now; the limits and their store are worked out where they are used (./state.ts).
    resolveRateLimits(config.source.rateLimit);
    return undefined;
  },
} satisfies Feature;
