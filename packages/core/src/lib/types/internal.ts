import type { ClientIp } from "./client-address.js";
import type { ProviderConfig } from "./providers.js";

/** A provider after normalisation: its URLs are known. */
export type InternalProvider = ProviderConfig & {
  /** `<origin><basePath>/signin/<id>` */
  signinUrl: string;
  /** `<origin><basePath>/callback/<id>` */
  callbackUrl: string;
};

/** A parsed request. */
export interface RequestInternal {
  url: URL;
  method: "GET" | "POST";
  /** The route's name: one of ../routes/index.ts (the parser only accepts those). */
  action: string;
  providerId: string | undefined;
  headers: Headers;
  cookies: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, unknown> | undefined;
  /**
   * The request as provider callbacks receive it (`authorize`, `sendVerificationRequest`). For a
   * POST it is rebuilt on first use, with the same URL and headers and the body text that was read
   * (none for a media type other than form or JSON), so its body can be read again.
   */
  original: Request;
  /**
   * The client's address, worked out on first use by `client-address.ts` (a promise while the
   * `clientAddress` hook answers; `null` when it cannot be known); `undefined` until then.
   */
  clientIp?: ClientIp | null | Promise<ClientIp | null> | undefined;
}
