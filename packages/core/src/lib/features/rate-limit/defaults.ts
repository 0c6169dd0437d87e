/**
 * The default limits, and `AuthConfig.rateLimit` merged over them once per configuration. Every
 * limit is on unless the configuration turns it off with `false`.
 */
import { AuthError } from "../../errors.js";
import type {
  BackoffRule,
  CredentialsRateLimit,
  RateLimitOptions,
  RateLimitRule,
} from "./options.js";

/** The limits that apply when the configuration says nothing (docs/rate-limits.md). */
export const DEFAULT_RATE_LIMITS = {
  credentials: {
    /** Sign-in attempts per client address, whatever the account. */
    perClient: { max: 30, windowSeconds: 60 },
    /** Failures of one account from one address: 5 free, then 1 s, 2 s, 4 s, … up to 15 min. */
    failures: { freeAttempts: 5, baseSeconds: 1, maxSeconds: 15 * 60 },
  },
  email: {
    /** Sign-in emails to one address. */
    perAddress: { max: 3, windowSeconds: 10 * 60 },
    /** Sign-in emails asked for by one client address. */
    perClient: { max: 10, windowSeconds: 10 * 60 },
  },
  webauthn: { perClient: { max: 60, windowSeconds: 60 } },
  oauth: { perClient: { max: 60, windowSeconds: 60 } },
} as const satisfies Record<string, Record<string, RateLimitRule | BackoffRule>>;

/** The limits of a configuration; `null` is a limit turned off. */
export interface ResolvedRateLimits {
  credentials: {
    perClient: RateLimitRule | null;
    failures: BackoffRule | null;
    /** `credentials.account`, when the app gives one. */
    account: CredentialsRateLimit["account"];
  };
  email: { perAddress: RateLimitRule | null; perClient: RateLimitRule | null };
  webauthn: { perClient: RateLimitRule | null };
  oauth: { perClient: RateLimitRule | null };
}

const wholeNumber = (value: unknown, min: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min;

function rule(name: string, value: unknown, fallback: RateLimitRule): RateLimitRule | null {
  if (value === false) return null;
  if (value === undefined) return fallback;
  const given = value as Partial<RateLimitRule>;
  if (!wholeNumber(given?.max, 1) || !wholeNumber(given?.windowSeconds, 1)) {
    throw new AuthError(
      `rateLimit.${name} must be false or { max, windowSeconds } with whole numbers of at least 1`,
    );
  }
  return { max: given.max, windowSeconds: given.windowSeconds };
}

function backoff(name: string, value: unknown, fallback: BackoffRule): BackoffRule | null {
  if (value === false) return null;
  if (value === undefined) return fallback;
  const given = value as Partial<BackoffRule>;
  if (
    !wholeNumber(given?.freeAttempts, 0) ||
    !wholeNumber(given?.baseSeconds, 1) ||
    !wholeNumber(given?.maxSeconds, 1) ||
    given.maxSeconds < given.baseSeconds
  ) {
    throw new AuthError(
      `rateLimit.${name} must be false or { freeAttempts, baseSeconds, maxSeconds } with whole numbers (maxSeconds at least baseSeconds)`,
    );
  }
  return {
    freeAttempts: given.freeAttempts,
    baseSeconds: given.baseSeconds,
    maxSeconds: given.maxSeconds,
  };
}

function account(value: unknown): CredentialsRateLimit["account"] {
  if (value === undefined || typeof value === "function")
    return value as CredentialsRateLimit["account"];
  throw new AuthError("rateLimit.credentials.account must be a function");
}

/** One action's options: `false` (all off), an object, or nothing (the defaults). */
function section(name: string, value: unknown): Record<string, unknown> | false {
  if (value === false) return false;
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null) {
    throw new AuthError(`rateLimit.${name} must be false or an object`);
  }
  return value as Record<string, unknown>;
}

/** `AuthConfig.rateLimit` over the defaults. Throws an `AuthError` for a malformed limit. */
export function resolveRateLimits(
  options: RateLimitOptions | false | undefined,
): ResolvedRateLimits {
  if (options !== undefined && options !== false && (typeof options !== "object" || !options)) {
    throw new AuthError("rateLimit must be false or an object");
  }
  const all = options === false ? false : (options ?? {});
  const part = (name: keyof typeof DEFAULT_RATE_LIMITS) =>
    all === false ? false : section(name, all[name]);
  const d = DEFAULT_RATE_LIMITS;
  const credentials = part("credentials");
  const email = part("email");
  const webauthn = part("webauthn");
  const oauth = part("oauth");
  return {
    credentials: {
      perClient: credentials
        ? rule("credentials.perClient", credentials.perClient, d.credentials.perClient)
        : null,
      failures: credentials
        ? backoff("credentials.failures", credentials.failures, d.credentials.failures)
        : null,
      account: credentials ? account(credentials.account) : undefined,
    },
    email: {
      perAddress: email ? rule("email.perAddress", email.perAddress, d.email.perAddress) : null,
      perClient: email ? rule("email.perClient", email.perClient, d.email.perClient) : null,
    },
    webauthn: {
      perClient: webauthn
        ? rule("webauthn.perClient", webauthn.perClient, d.webauthn.perClient)
        : null,
    },
    oauth: {
      perClient: oauth ? rule("oauth.perClient", oauth.perClient, d.oauth.perClient) : null,
    },
  };
}
