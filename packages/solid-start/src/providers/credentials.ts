/**
 * The credentials provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export {
  type CredentialInput,
  type CredentialsConfig,
  type CredentialsOptions,
  default,
} from "@gatehousejs/core/providers/credentials";
