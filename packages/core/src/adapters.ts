/**
 * The adapter contract: the shapes a data layer stores and the methods Gatehouse calls.
 * @module
 */
export { isDate } from "./lib/dates.js";
export type {
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterAccountTypes,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
  VerificationToken,
} from "./lib/types/models.js";
