/**
 * The adapter contract of `@gatehousejs/core`, for Next.js apps that write or type an adapter.
 * @module
 */
export type {
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
  VerificationToken,
} from "@gatehousejs/core/adapters";
export { isDate } from "@gatehousejs/core/adapters";
