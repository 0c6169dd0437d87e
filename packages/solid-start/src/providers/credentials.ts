/**
 * The credentials provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export {
  type CredentialInput,
  type CredentialsConfig,
  type CredentialsOptions,
  default,
} from "@gatehouse/core/providers/credentials";
