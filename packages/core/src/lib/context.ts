/**
 * Per-request state shared by the actions: the resolved config, the cookies to set, and the
 * CSRF token and callback URL, each worked out only when an action asks for it.
 */
import type { ResolvedConfig } from "./config.js";
import { mintToken, tokenFromCookie, tokensMatch } from "./csrf.js";
import { InvalidCallbackUrl, InvalidProvider } from "./errors.js";
import type { Cookie, CookiesOptions } from "./types/config.js";
import type { InternalProvider, RequestInternal } from "./types/internal.js";
import type { ProviderConfig } from "./types/providers.js";

/** What an action works with. */
export class Context {
  readonly origin: string;
  /** `<origin><basePath>` */
  readonly authUrl: string;
  readonly cookieOptions: CookiesOptions;
  /** Cookies to set on the response. */
  readonly setCookies: Cookie[] = [];
  #csrf: Promise<{ token: string; verified: boolean }> | undefined;
  #callbackUrl: Promise<string> | undefined;

  constructor(
    readonly req: RequestInternal,
    readonly config: ResolvedConfig,
  ) {
    this.origin = req.url.origin;
    this.authUrl = this.origin + config.basePath;
    this.cookieOptions = config.cookies(req.url.protocol === "https:");
  }

  /** A provider with its URLs. */
  provider(config: ProviderConfig): InternalProvider {
    return {
      ...config,
      signinUrl: `${this.authUrl}/signin/${encodeURIComponent(config.id)}`,
      callbackUrl: `${this.authUrl}/callback/${encodeURIComponent(config.id)}`,
    };
  }

  /** The provider named in the path. Throws `InvalidProvider` when there is none by that id. */
  requireProvider(): InternalProvider {
    const id = this.req.providerId;
    const found = id === undefined ? undefined : this.config.providerById.get(id);
    if (!found) throw new InvalidProvider("No provider has the id given in the path");
    return this.provider(found);
  }

  /**
   * The CSRF token for this browser: the cookie's, when valid, else a fresh one (its cookie is
   * queued). `verified` is true when a POST body echoed the cookie's token.
   */
  csrf(): Promise<{ token: string; verified: boolean }> {
    this.#csrf ??= this.#resolveCsrf();
    return this.#csrf;
  }

  async #resolveCsrf(): Promise<{ token: string; verified: boolean }> {
    const { name, options } = this.cookieOptions.csrfToken;
    const existing = await tokenFromCookie(this.req.cookies[name], this.config.secrets);
    if (existing) {
      return { token: existing, verified: tokensMatch(this.req.body?.csrfToken, existing) };
    }
    const fresh = await mintToken(this.config.secrets[0]!);
    this.setCookies.push({ name, value: fresh.cookie, options });
    return { token: fresh.token, verified: false };
  }

  /**
   * Where to send the user when the flow ends: the body's or query's `callbackUrl` (through the
   * `redirect` callback; a refused one is an `InvalidCallbackUrl`), else the callback-url cookie
   * (ignored when refused), else the site's origin.
   */
  callbackUrl(): Promise<string> {
    this.#callbackUrl ??= this.#resolveCallbackUrl();
    return this.#callbackUrl;
  }

  async #redirect(url: string): Promise<string> {
    let result: string;
    try {
      result = await this.config.callbacks.redirect({ url, baseUrl: this.origin });
    } catch (cause) {
      if (cause instanceof InvalidCallbackUrl) throw cause;
      throw new InvalidCallbackUrl("The redirect callback refused the callback URL", { cause });
    }
    if (typeof result !== "string" || !URL.canParse(result, this.origin)) {
      throw new InvalidCallbackUrl("The redirect callback returned something that is not a URL");
    }
    const absolute = new URL(result, this.origin);
    if (absolute.protocol !== "http:" && absolute.protocol !== "https:") {
      throw new InvalidCallbackUrl("The redirect callback returned a URL that is not http(s)");
    }
    // An absolute URL in plain printable ASCII stays as the callback wrote it. Anything else (a
    // relative URL, non-ASCII text, a lone surrogate) becomes its normalised, percent-encoded
    // form: it goes into a `Location` header and a cookie, which carry bytes, not text.
    return URL.canParse(result) && /^[\x21-\x7e]*$/.test(result) ? result : absolute.href;
  }

  async #resolveCallbackUrl(): Promise<string> {
    const { name, options } = this.cookieOptions.callbackUrl;
    const fromCookie = this.req.cookies[name];
    const explicit = this.req.body?.callbackUrl ?? this.req.query.callbackUrl;
    if (explicit !== undefined && explicit !== "") {
      if (typeof explicit !== "string") {
        throw new InvalidCallbackUrl("The callback URL is not a string");
      }
      const url = await this.#redirect(explicit);
      if (url !== fromCookie) this.setCookies.push({ name, value: url, options });
      return url;
    }
    if (fromCookie) {
      try {
        return await this.#redirect(fromCookie);
      } catch (error) {
        this.config.logger.warn("client-error", error as Error);
      }
    }
    return this.origin;
  }
}
