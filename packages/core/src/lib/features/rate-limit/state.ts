/**
 * The rate limits of one configuration: `AuthConfig.rateLimit` over the defaults, and the store
 * they count in (`rateLimit.store`, or one memory store per configuration, present even when the
 * limits are off: sign-in code tries and back-channel replays count there too). Worked out once
 * per configuration, when the feature is equipped (a malformed limit is a configuration error).
 */
import type { ResolvedConfig } from "../../config.js";
import { type ResolvedRateLimits, resolveRateLimits } from "./defaults.js";
import { MemoryRateLimitStore } from "./memory.js";
import type { RateLimitStore } from "./options.js";

export interface RateLimitState {
  /** The limits of each sign-in action over the defaults; `null` where turned off. */
  limits: ResolvedRateLimits;
  store: RateLimitStore;
}

const states = new WeakMap<ResolvedConfig, RateLimitState>();

/** The rate limits of `config` and their store. Throws an `AuthError` for a malformed limit. */
export function rateLimitsOf(config: ResolvedConfig): RateLimitState {
  let state = states.get(config);
  if (!state) {
    const options = config.source.rateLimit;
    state = {
      limits: resolveRateLimits(options),
      store: (options ? options.store : undefined) ?? MemoryRateLimitStore(),
    };
    states.set(config, state);
  }
  return state;
}
