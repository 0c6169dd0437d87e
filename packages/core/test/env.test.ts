import { createActionURL, isAuthAction, isDate, setEnvDefaults } from "@gatehousejs/core";
import type { AuthConfig, OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";

const acme = { id: "my-idp", name: "IdP", type: "oidc" } as OAuthConfig;

describe("setEnvDefaults", () => {
  test("reads AUTH_SECRET and the numbered rotation secrets, highest first", () => {
    const config: AuthConfig = { providers: [] };
    setEnvDefaults({ AUTH_SECRET: "s0", AUTH_SECRET_1: "s1", AUTH_SECRET_3: "s3" }, config);
    expect(config.secret).toEqual(["s3", "s1", "s0"]);
    const single: AuthConfig = { providers: [] };
    setEnvDefaults({ AUTH_SECRET: "only" }, single);
    expect(single.secret).toBe("only");
    const own: AuthConfig = { providers: [], secret: "mine" };
    setEnvDefaults({ AUTH_SECRET: "env" }, own);
    expect(own.secret).toBe("mine");
  });

  test("AUTH_URL sets basePath from its path and pins the origin, without trusting the host", () => {
    const config: AuthConfig = { providers: [] };
    setEnvDefaults({ AUTH_URL: "https://app.example/api/auth" }, config);
    expect(config.basePath).toBe("/api/auth");
    expect(config.url).toBe("https://app.example/api/auth");
    expect(config.trustHost).toBe(false);
    const root: AuthConfig = { providers: [] };
    setEnvDefaults({ AUTH_URL: "https://app.example" }, root);
    expect(root.basePath).toBe("/auth");
  });

  test("an explicit basePath with AUTH_URL warns unless suppressed", () => {
    const warn = vi.fn();
    const config: AuthConfig = { providers: [], basePath: "/x", logger: { warn } };
    setEnvDefaults({ AUTH_URL: "https://app.example/y" }, config);
    expect(warn).toHaveBeenCalledWith("env-url-basepath-redundant");
    expect(config.basePath).toBe("/x");
    warn.mockClear();
    setEnvDefaults({ AUTH_URL: "https://app.example/y" }, config, true);
    expect(warn).not.toHaveBeenCalled();
  });

  test.each([
    [{ AUTH_TRUST_HOST: "true" }, true],
    [{ AUTH_TRUST_HOST: "1" }, true],
    [{ AUTH_TRUST_HOST: "false" }, false],
    [{ AUTH_TRUST_HOST: "0" }, false],
    [{ VERCEL: "1" }, true],
    [{ CF_PAGES: "1" }, true],
    [{}, false],
    [{ NODE_ENV: "development" }, false],
  ])("trustHost from %j is %s", (env, expected) => {
    const config: AuthConfig = { providers: [] };
    setEnvDefaults(env, config);
    expect(config.trustHost).toBe(expected);
  });

  test("AUTH_REDIRECT_PROXY_URL and provider credentials come from the environment", () => {
    const config: AuthConfig = {
      providers: [acme, () => ({ ...acme, id: "other", clientId: "own" })],
    };
    setEnvDefaults(
      {
        AUTH_REDIRECT_PROXY_URL: "https://proxy.example/auth",
        AUTH_MY_IDP_ID: "cid",
        AUTH_MY_IDP_SECRET: "csecret",
        AUTH_MY_IDP_ISSUER: "https://idp.example",
        AUTH_OTHER_ID: "ignored",
      },
      config,
    );
    expect(config.redirectProxyUrl).toBe("https://proxy.example/auth");
    expect(config.providers[0]).toMatchObject({
      clientId: "cid",
      clientSecret: "csecret",
      issuer: "https://idp.example",
    });
    expect(config.providers[1]).toMatchObject({ clientId: "own" });
  });

  test("AUTH_<ID>_KEY reaches email providers as apiKey", () => {
    const config: AuthConfig = {
      providers: [
        { id: "resend", name: "Resend", type: "email", sendVerificationRequest: () => {} },
      ],
    };
    setEnvDefaults({ AUTH_RESEND_KEY: "re_123" }, config);
    expect(config.providers[0]).toMatchObject({ apiKey: "re_123" });
  });
});

describe("createActionURL", () => {
  const headers = new Headers({ host: "app.example", "x-forwarded-proto": "https" });
  test.each([
    [{}, { basePath: "/auth", trustHost: true }, "https://app.example/auth/signout"],
    [{}, { basePath: "/" }, "http://app.example/signout"],
    [{ AUTH_TRUST_HOST: "true" }, { basePath: "/" }, "https://app.example/signout"],
    [
      { AUTH_TRUST_HOST: "true" },
      { basePath: "/", trustHost: false },
      "http://app.example/signout",
    ],
    [{}, { url: "https://pinned.example" }, "https://pinned.example/signout"],
    [{ AUTH_URL: "https://env.example/api/auth" }, {}, "https://env.example/api/auth/signout"],
    [
      { AUTH_URL: "https://env.example/api/auth" },
      { basePath: "/api/auth" },
      "https://env.example/api/auth/signout",
    ],
    [
      { AUTH_URL: "https://env.example" },
      { basePath: "/api/auth" },
      "https://env.example/api/auth/signout",
    ],
    [
      { NEXTAUTH_URL: "http://legacy.example/api/auth" },
      {},
      "http://legacy.example/api/auth/signout",
    ],
  ])("env %j, config %j → %s", (env, config, expected) => {
    expect(createActionURL("signout", "http", headers, env, config).href).toBe(expected);
  });

  test("warns when AUTH_URL's path and basePath disagree, and basePath wins", () => {
    const warn = vi.fn();
    const url = createActionURL(
      "session",
      "https",
      headers,
      { AUTH_URL: "https://e.example/my-app" },
      { basePath: "/api/auth", logger: { warn } },
    );
    expect(url.href).toBe("https://e.example/api/auth/session");
    expect(warn).toHaveBeenCalledWith("env-url-basepath-mismatch");
  });

  test("uses x-forwarded-host, else host, and the given protocol", () => {
    const url = createActionURL(
      "csrf",
      "http",
      new Headers({ host: "h.example", "x-forwarded-host": "fwd.example" }),
      {},
      { basePath: "/auth", trustHost: true },
    );
    expect(url.href).toBe("http://fwd.example/auth/csrf");
  });

  test("forwarded headers are ignored unless the host is trusted", () => {
    const headers = new Headers({
      host: "h.example",
      "x-forwarded-host": "evil.example",
      "x-forwarded-proto": "https",
    });
    expect(createActionURL("csrf", "http", headers, {}, { basePath: "/auth" }).href).toBe(
      "http://h.example/auth/csrf",
    );
  });

  test.each([
    ["fwd.example, proxy.internal", "https, http", "https://fwd.example/auth/csrf"],
    [" fwd.example ,x", "javascript", "http://fwd.example/auth/csrf"],
    ["fwd.example", "ftp, https", "http://fwd.example/auth/csrf"],
    ["fwd.example", "HTTPS", "https://fwd.example/auth/csrf"],
    ["evil.example/path@x", "https", "https://localhost/auth/csrf"],
  ])(
    "x-forwarded-host %j and -proto %j → %s (first value, http/https only)",
    (host, proto, out) => {
      const headers = new Headers({
        host: "h.example",
        "x-forwarded-host": host,
        "x-forwarded-proto": proto,
      });
      expect(
        createActionURL("csrf", "http", headers, {}, { basePath: "/auth", trustHost: true }).href,
      ).toBe(out);
    },
  );
});

describe("small utilities", () => {
  test("isAuthAction knows exactly the nine actions", () => {
    for (const a of [
      "providers",
      "session",
      "csrf",
      "signin",
      "signout",
      "callback",
      "verify-request",
      "error",
      "webauthn-options",
    ]) {
      expect(isAuthAction(a)).toBe(true);
    }
    for (const a of ["", "signIn", "toString", "__proto__", "session/"])
      expect(isAuthAction(a)).toBe(false);
  });

  test("isDate accepts Dates and ISO strings, nothing else", () => {
    expect(isDate(new Date())).toBe(true);
    expect(isDate("2026-11-21T06:14:59.000Z")).toBe(true);
    expect(isDate("2026-11-21")).toBe(true);
    expect(isDate(new Date("nope"))).toBe(false);
    expect(isDate("next tuesday")).toBe(false);
    expect(isDate("2026-13-45T99:00:00Z")).toBe(false);
    expect(isDate(1700000000000)).toBe(false);
    expect(isDate(null)).toBe(false);
  });
});
