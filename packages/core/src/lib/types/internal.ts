import type { ProviderConfig } from "./providers.js";

/** A provider after normalisation: its URLs are known. */
export type InternalProvider = ProviderConfig & {
  /** `<origin><basePath>/signin/<id>` */
  signinUrl: string;
  /** `<origin><basePath>/callback/<id>` */
  callbackUrl: string;
};
