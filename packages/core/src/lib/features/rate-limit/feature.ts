/**
 * Rate limits (docs/rate-limits.md). The sign-in methods ask them before they verify anything;
 * equipping a configuration only checks its limits, so a malformed one is a configuration error.
 */
import type { Feature } from "../../feature.js";
import { rateLimitsOf } from "./state.js";

export const rateLimitFeature = {
  name: "rate-limit",
  equip(config) {
    rateLimitsOf(config);
    return undefined;
  },
} satisfies Feature;
