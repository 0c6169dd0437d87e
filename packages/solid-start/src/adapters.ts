/**
 * The adapter contract of `@gatehouse/core`, for SolidStart apps that write or type an adapter.
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
} from "@gatehouse/core/adapters";
export { isDate } from "@gatehouse/core/adapters";
