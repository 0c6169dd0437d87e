import { describe, expect, it } from "vitest";
import {
  checkAdapter,
  checkClientAddress,
  checkConfig,
  checkProviders,
  checkSecret,
  checkUrl,
  type Finding,
  REQUIRED_METHODS,
} from "../src/doctor/checks.js";

const GOOD_SECRET = "hV3r9Qx2LmP7sT1wZk8YbN4cJf6GdA0eRu5IoE2nWq";
const errors = (findings: Finding[]) =>
  findings.filter((f) => f.level === "error").map((f) => f.message);
const adapterWith = (methods: readonly string[]) =>
  Object.fromEntries(methods.map((m) => [m, () => null]));

describe("the secret check", () => {
  it("accepts a long random secret from the config or AUTH_SECRET", () => {
    expect(checkSecret({ secret: GOOD_SECRET }, {})).toEqual([]);
    expect(checkSecret({}, { AUTH_SECRET: GOOD_SECRET })).toEqual([]);
  });

  it("flags a missing, short or placeholder secret without printing it", () => {
    expect(errors(checkSecret({}, {}))).toEqual([
      expect.stringMatching(/no secret: set AUTH_SECRET/),
    ]);
    const short = checkSecret({}, { AUTH_SECRET: "tooShort123" });
    expect(errors(short)).toEqual([expect.stringMatching(/AUTH_SECRET is 11 characters/)]);
    for (const placeholder of [
      "change-me-to-a-long-random-string-please-ok",
      "your-secret-here-your-secret-here-your-secret",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ]) {
      const found = checkSecret({ secret: placeholder }, {});
      expect(errors(found), placeholder).toEqual([
        expect.stringMatching(/looks like a placeholder/),
      ]);
      expect(JSON.stringify(found)).not.toContain(placeholder);
    }
    // Each secret of a rotation list is checked.
    expect(errors(checkSecret({}, { AUTH_SECRET: GOOD_SECRET, AUTH_SECRET_1: "short" }))).toEqual([
      expect.stringMatching(/AUTH_SECRET_1 is 5 characters/),
    ]);
  });
});

describe("the url check", () => {
  it("needs url or trustHost", () => {
    expect(errors(checkUrl({}, {}).findings)).toEqual([expect.stringMatching(/neither url/)]);
    expect(errors(checkUrl({ trustHost: true }, {}).findings)).toEqual([]);
    expect(errors(checkUrl({}, { AUTH_TRUST_HOST: "true" }).findings)).toEqual([]);
    expect(errors(checkUrl({}, { AUTH_TRUST_HOST: "false" }).findings)).toHaveLength(1);
    expect(errors(checkUrl({}, { VERCEL: "1" }).findings)).toEqual([]);
  });

  it("reads the origin and base path, and warns about plain http on a public host", () => {
    const { findings, site } = checkUrl({}, { AUTH_URL: "https://example.com/api/auth" });
    expect(findings).toEqual([]);
    expect(site).toEqual({ origin: "https://example.com", basePath: "/api/auth" });
    expect(checkUrl({ url: "http://localhost:3000" }, {}).findings).toEqual([]);
    expect(checkUrl({ url: "http://example.com" }, {}).findings[0]?.level).toBe("warning");
    expect(errors(checkUrl({ url: "not a url" }, {}).findings)).toHaveLength(1);
  });
});

describe("the provider check", () => {
  const site = { origin: "https://example.com", basePath: "/auth" };
  it("needs an OAuth provider's client id and secret, from the config or AUTH_<ID>_*", () => {
    const github = { id: "github", type: "oauth" };
    expect(errors(checkProviders({ providers: [github] }, {}, site))).toEqual([
      "no client id: set AUTH_GITHUB_ID (or clientId)",
      "no client secret: set AUTH_GITHUB_SECRET (or clientSecret)",
    ]);
    const env = { AUTH_GITHUB_ID: "id", AUTH_GITHUB_SECRET: "s" };
    const ok = checkProviders({ providers: [github] }, env, site);
    expect(errors(ok)).toEqual([]);
    expect(ok).toContainEqual({
      level: "info",
      topic: "provider github",
      message: "register the callback URL https://example.com/auth/callback/github",
    });
  });

  it("needs an OIDC issuer, an SMTP server for Nodemailer, and the WebAuthn flag", () => {
    const config = {
      providers: [
        { id: "my-idp", type: "oidc", clientId: "a", clientSecret: "b" },
        { id: "nodemailer", type: "email" },
        { id: "passkey", type: "webauthn" },
      ],
    };
    expect(errors(checkProviders(config, {}, site))).toEqual([
      "no issuer: set AUTH_MY_IDP_ISSUER (or issuer)",
      "no SMTP server: set EMAIL_SERVER (or AUTH_NODEMAILER_SERVER, or server)",
      "WebAuthn is experimental: set experimental: { enableWebAuthn: true }",
    ]);
    const env = { AUTH_MY_IDP_ISSUER: "https://idp.example", EMAIL_SERVER: "smtp://x" };
    expect(
      errors(checkProviders({ ...config, experimental: { enableWebAuthn: true } }, env, site)),
    ).toEqual([]);
  });

  it("calls a provider given as a function, and flags two providers with one id", () => {
    const provider = () => ({ id: "credentials", type: "credentials" });
    expect(errors(checkProviders({ providers: [provider, provider] }, {}, site))).toEqual([
      'two providers share the id "credentials"',
    ]);
  });
});

describe("the adapter check", () => {
  it("needs an adapter for database sessions, email, passkeys and passwords", () => {
    expect(errors(checkAdapter({ providers: [{ id: "p", type: "password" }] }))).toEqual([
      "the password provider needs an adapter",
    ]);
    expect(checkAdapter({ providers: [{ id: "c", type: "credentials" }] })).toEqual([]);
  });

  it("names the methods the configured features need and the adapter lacks", () => {
    const config = {
      adapter: adapterWith(REQUIRED_METHODS.oauth),
      providers: [
        { id: "github", type: "oauth" },
        { id: "passkey", type: "webauthn" },
      ],
      session: { strategy: "jwt" },
    };
    expect(errors(checkAdapter(config))).toEqual([
      "the adapter lacks createAuthenticator, getAccount, getAuthenticator, listAuthenticatorsByUserId, updateAuthenticatorCounter, which this configuration needs",
    ]);
    const full = {
      ...config,
      adapter: adapterWith([...REQUIRED_METHODS.oauth, ...REQUIRED_METHODS.webauthn]),
    };
    const found = checkAdapter(full);
    expect(errors(found)).toEqual([]);
    expect(found.map((f) => f.message)).toContain(
      "no deleteAuthenticator: users cannot remove a passkey",
    );
  });

  it("takes an adapter as database sessions by default, as core does", () => {
    const found = checkAdapter({
      adapter: adapterWith(REQUIRED_METHODS.oauth),
      providers: [{ id: "g", type: "oauth" }],
    });
    expect(errors(found)).toEqual([
      "the adapter lacks createSession, deleteSession, getSessionAndUser, updateSession, which this configuration needs",
    ]);
  });
});

describe("the client address check", () => {
  it("warns when rate limits cannot tell clients apart, unless configured or off", () => {
    expect(checkClientAddress({}, {})[0]?.level).toBe("warning");
    expect(checkClientAddress({}, { AUTH_TRUSTED_PROXIES: "1" })).toEqual([]);
    expect(checkClientAddress({ trustedProxies: ["10.0.0.0/8"] }, {})).toEqual([]);
    expect(checkClientAddress({ clientAddress: () => "1.2.3.4" }, {})).toEqual([]);
    expect(checkClientAddress({ rateLimit: false }, {})).toEqual([]);
  });
});

describe("checkConfig", () => {
  it("finds no error in a complete configuration", () => {
    const config = {
      secret: GOOD_SECRET,
      url: "https://example.com",
      trustedProxies: 1,
      adapter: adapterWith([...REQUIRED_METHODS.oauth, ...REQUIRED_METHODS.databaseSessions]),
      providers: [{ id: "github", type: "oauth", clientId: "a", clientSecret: "b" }],
    };
    expect(errors(checkConfig(config, {}))).toEqual([]);
  });
});
