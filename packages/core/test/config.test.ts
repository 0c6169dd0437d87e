import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import type { ErrorType } from "@gatehousejs/core/errors";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig, Provider } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { credentialsConfig, ORIGIN, type recordingLogger } from "./helpers.js";

type Logger = ReturnType<typeof recordingLogger>;

async function configError(config: AuthConfig, path = "/auth/session") {
  const response = await Auth(new Request(`${ORIGIN}${path}`), config);
  const logger = config.logger as Logger;
  const error = logger.error.mock.calls[0]?.[0] as { type: ErrorType; message: string } | undefined;
  return { response, error, logger };
}

const oauth = (extra: Record<string, unknown> = {}): Provider =>
  ({
    id: "acme",
    name: "Acme",
    type: "oauth",
    clientId: "id",
    clientSecret: "s",
    ...extra,
  }) as Provider;
const email = {
  id: "email",
  name: "Email",
  type: "email",
  sendVerificationRequest: () => {},
} as Provider;

describe("configuration checks", () => {
  test.each<[string, Partial<AuthConfig>, ErrorType, RegExp?]>([
    ["no secret", { secret: undefined }, "MissingSecret"],
    ["an empty secret list", { secret: [] }, "MissingSecret"],
    ["an untrusted host", { trustHost: false }, "UntrustedHost"],
    [
      "a credentials provider without authorize",
      {
        providers: [
          { id: "c", name: "C", type: "credentials", credentials: {} } as unknown as Provider,
        ],
      },
      "MissingAuthorize",
    ],
    [
      "an unknown session strategy",
      { session: { strategy: "cookie" as "jwt" } },
      "UnsupportedStrategy",
    ],
    [
      "database sessions without an adapter",
      { session: { strategy: "database" } },
      "MissingAdapter",
    ],
    ["an email provider without an adapter", { providers: [email] }, "MissingAdapter"],
    [
      "WebAuthn without the experimental flag",
      {
        adapter: MemoryAdapter(),
        providers: [{ id: "webauthn", name: "Passkey", type: "webauthn" } as Provider],
      },
      "ExperimentalFeatureNotEnabled",
    ],
    [
      "two providers with one id",
      {
        providers: [Credentials({ authorize: () => null }), Credentials({ authorize: () => null })],
      },
      "InvalidProvider",
    ],
    [
      "a provider factory that throws",
      {
        providers: [
          () => {
            throw new Error("boom");
          },
        ],
      },
      "InvalidProvider",
    ],
  ])("%s is refused with %s: 500 JSON, one log line", async (_name, overrides, type, message) => {
    const { response, error, logger } = await configError(credentialsConfig(overrides));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      message: expect.stringMatching(/server configuration/),
    });
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(error?.type).toBe(type);
    if (message) expect(error?.message).toMatch(message);
  });

  test.each<[string, Provider, ErrorType, RegExp]>([
    ["an OAuth provider without issuer or endpoints", oauth(), "InvalidEndpoints", /authorization/],
    [
      "an OAuth provider without a userinfo URL",
      oauth({ authorization: "https://a/auth", token: "https://a/token" }),
      "InvalidEndpoints",
      /userinfo/,
    ],
    [
      "an OAuth provider without a client id",
      oauth({ clientId: undefined, issuer: "https://a.example" }),
      "InvalidProvider",
      /AUTH_ACME_ID/,
    ],
  ])(
    "%s breaks only itself: %s logged once, the rest works",
    async (_name, provider, type, message) => {
      const base = credentialsConfig();
      const config = credentialsConfig({ providers: [provider, ...base.providers] });
      const { response, error, logger } = await configError(config);
      expect(response.status).toBe(200);
      await Auth(new Request(`${ORIGIN}/auth/providers`), config);
      expect(logger.error).toHaveBeenCalledTimes(1);
      expect(error?.type).toBe(type);
      expect(error?.message).toMatch(message);
    },
  );

  test("missing adapter methods are named at configuration time", async () => {
    const { createSession: _a, updateSession: _b, ...partial } = MemoryAdapter();
    const { error } = await configError(credentialsConfig({ adapter: partial }));
    expect(error?.type).toBe("MissingAdapterMethods");
    expect(error?.message).toContain("createSession, updateSession");
  });

  test("jwt can be forced with an adapter; then no session methods are needed", async () => {
    const config = credentialsConfig({ adapter: {}, session: { strategy: "jwt" } });
    const response = await Auth(new Request(`${ORIGIN}/auth/session`), config);
    expect(response.status).toBe(200);
  });

  test("a page action with a broken configuration renders the error page (500), or the custom one", async () => {
    const broken = credentialsConfig({ secret: undefined });
    const page = await Auth(new Request(`${ORIGIN}/auth/signin`), broken);
    expect(page.status).toBe(500);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const custom = credentialsConfig({ secret: undefined, pages: { error: "/oops" } });
    const redirect = await Auth(new Request(`${ORIGIN}/auth/signin`), custom);
    expect(redirect.headers.get("location")).toBe(`${ORIGIN}/oops?error=Configuration`);
  });

  test("the configuration is checked once per config object, not per request", async () => {
    const factory = vi.fn(() => Credentials({ authorize: () => null }));
    const config = credentialsConfig({ providers: [factory] });
    for (let i = 0; i < 5; i++) await Auth(new Request(`${ORIGIN}/auth/providers`), config);
    expect(factory).toHaveBeenCalledTimes(1);
  });

  test("debug warns once and a user logger replaces the built-in levels it defines", async () => {
    const error = vi.fn();
    const config = credentialsConfig({ debug: true, logger: { error } });
    const consoleWarn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      for (let i = 0; i < 3; i++) await Auth(new Request(`${ORIGIN}/auth/nope`), config);
      // warn is not defined by the user logger: the built-in one prints one line per warning,
      // and a client's mistake (an unknown path) is a warning under its own type, not an error.
      expect(consoleWarn).toHaveBeenCalledTimes(4);
      expect(String(consoleWarn.mock.calls[0]![0])).toBe("[gatehouse][warn][debug-enabled]");
      expect(String(consoleWarn.mock.calls[1]![0])).toMatch(
        /^\[gatehouse\]\[warn\]\[client-error\] UnknownAction: /,
      );
      expect(error).not.toHaveBeenCalled();
    } finally {
      consoleWarn.mockRestore();
    }
  });

  test("the debug flag is ignored when a logger is set: no debug lines on the console", async () => {
    const consoleDebug = vi.spyOn(console, "debug").mockImplementation(() => {});
    try {
      const config = credentialsConfig({
        debug: true,
        logger: { error: () => {}, warn: () => {} },
        adapter: MemoryAdapter(),
        session: { strategy: "jwt" },
      });
      await Auth(new Request(`${ORIGIN}/auth/session`), config);
      expect(consoleDebug).not.toHaveBeenCalled();
    } finally {
      consoleDebug.mockRestore();
    }
  });
});
