/**
 * What a configuration with a password provider needs, checked when the configuration is read
 * (./feature.ts `equip`), before any request: an adapter with the methods below, and, when
 * accounts may sign in before their address is proven, a way to end a user's sessions.
 *
 * The adapter check stands in for lib/capabilities.ts's required core, which names the methods
 * of the kernel's own provider types only; it refuses with the same error and message.
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { ResolvedConfig } from "../../config.js";
import { AuthError, MissingAdapter, MissingAdapterMethods } from "../../errors.js";
import type { WarningCode } from "../../types/config.js";
import type { Adapter } from "../../types/models.js";
import type { ProviderConfig } from "../../types/providers.js";

/** The adapter methods a password provider cannot do without. */
export const PASSWORD_ADAPTER_METHODS = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "updateUser",
  "linkAccount",
  "getAccount",
  "updateAccount",
  "createVerificationToken",
  "useVerificationToken",
] as const satisfies readonly (keyof Adapter)[];

/** The password providers of a configuration. */
export const passwordProviders = (config: Pick<ResolvedConfig, "providers">) =>
  config.providers.filter((p) => (p as { type: string }).type === "password") as ProviderConfig[];

/**
 * Whether every session of a user can be ended: database sessions with `listSessionsByUserId`,
 * or JWT sessions with a revocation store (as features/sessions/address-proof.ts decides).
 */
export function canEndSessions(config: ResolvedConfig): boolean {
  if (config.session.strategy === "jwt") return config.session.revocation !== undefined;
  return capabilitiesOf(config).listSessions !== undefined;
}

/**
 * Refuses a configuration whose password providers cannot work: no adapter, an adapter without
 * one of {@link PASSWORD_ADAPTER_METHODS} (named, sorted), or `requireEmailVerification: false`
 * where a user's sessions cannot be ended (whoever signed up with someone else's address would
 * stay signed in after its owner took the account back).
 */
export function checkPasswordConfig(config: ResolvedConfig, providers: ProviderConfig[]): void {
  const adapter = config.adapter;
  if (!adapter) throw new MissingAdapter("Password accounts need an adapter");
  const methods = adapter as Partial<Record<keyof Adapter, unknown>>;
  const missing = PASSWORD_ADAPTER_METHODS.filter((name) => typeof methods[name] !== "function");
  if (missing.length > 0) {
    throw new MissingAdapterMethods(
      `The adapter lacks methods this configuration needs: ${[...missing].sort().join(", ")}`,
    );
  }
  const early = providers.find(
    (p) => (p as { requireEmailVerification?: unknown }).requireEmailVerification === false,
  );
  if (early && !canEndSessions(config)) {
    throw new AuthError(
      `Password provider "${early.id}" lets unverified accounts sign in (requireEmailVerification: false), which needs a way to end a user's sessions: database sessions with an adapter that has listSessionsByUserId, or session.revocation`,
    );
  }
}

/**
 * Warns, once per configuration, when a reset or a password change cannot end the user's other
 * sessions: whoever knew the old password would stay signed in wherever they are.
 */
export function warnIfSessionsSurvive(config: ResolvedConfig, providers: ProviderConfig[]): void {
  if (providers.length === 0 || canEndSessions(config)) return;
  const how =
    config.session.strategy === "jwt"
      ? "JWT sessions without session.revocation"
      : "database sessions with an adapter without listSessionsByUserId";
  config.logger.warn(
    // A member of WarningCodes where the provider's module (./types.ts) is in the program.
    "password-sessions-not-ended" as string as WarningCode,
    new Error(
      `Password provider "${providers[0]?.id}": a password reset or change cannot end the user's other sessions (${how}); set session.revocation, or use an adapter that lists sessions`,
    ),
  );
}
