import type { CookiesOptions, PagesOptions, Theme } from "./config.js";
import type { ProviderConfig } from "./providers.js";

/** A provider after normalisation: its URLs are known. */
export type InternalProvider = ProviderConfig & {
  /** `<origin><basePath>/signin/<id>` */
  signinUrl: string;
  /** `<origin><basePath>/callback/<id>` */
  callbackUrl: string;
};

/** Everything the built-in pages need to know. */
export interface PageOptions {
  theme: Required<Theme>;
  pages: PagesOptions;
  cookies: CookiesOptions;
}
