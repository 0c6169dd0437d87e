/**
 * Where `@simplewebauthn/server` comes from: the WebAuthn provider module supplies it, so core
 * never names it. A missing install, and a WebAuthn provider written by hand (which supplies
 * nothing), are configuration errors with a message that says what to do. Each test loads core
 * afresh, so that no provider created by another test has supplied the library already.
 */
import type { Provider } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { ORIGIN, recordingLogger, SECRET } from "./helpers.js";

afterEach(() => {
  vi.doUnmock("@simplewebauthn/server");
  vi.resetModules();
});

/** Fresh core modules, and a server whose only provider is `provider(modules)`. */
async function server(provider: (modules: { Passkey: () => Provider }) => Provider) {
  vi.resetModules();
  const { Auth } = await import("@gatehousejs/core");
  const { MemoryAdapter } = await import("@gatehousejs/core/adapters/memory");
  const { default: Passkey } = await import("@gatehousejs/core/providers/passkey");
  const logger = recordingLogger();
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    logger,
    experimental: { enableWebAuthn: true },
    providers: [provider({ Passkey })],
  };
  const options = () => Auth(new Request(`${ORIGIN}/auth/webauthn-options/passkey`), config);
  return { options, logger };
}

const loggedMessages = (logger: ReturnType<typeof recordingLogger>) =>
  logger.error.mock.calls.map(([error]) => (error as Error).message);

/** The error page's `Configuration` value: the client learns nothing more. */
function expectConfigurationError(response: Response) {
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
}

describe("@simplewebauthn/server, supplied by the provider", () => {
  test("Passkey() supplies it: the options answer", async () => {
    const { options, logger } = await server(({ Passkey }) => Passkey());
    const response = await options();
    expect(response.status).toBe(200);
    expect((await response.json()).action).toBe("authenticate");
    expect(logger.error).not.toHaveBeenCalled();
  });

  test("not installed: a configuration error that names the package, then working once it is", async () => {
    vi.doMock("@simplewebauthn/server", () => {
      throw new Error("Cannot find package '@simplewebauthn/server'");
    });
    const { options, logger } = await server(({ Passkey }) => Passkey());
    const response = await options();
    expectConfigurationError(response);
    expect(loggedMessages(logger)).toEqual([
      "WebAuthn needs the @simplewebauthn/server package installed",
    ]);
    // A failed import is not remembered: the next request tries again.
    vi.doUnmock("@simplewebauthn/server");
    expect((await options()).status).toBe(200);
  });

  test("a WebAuthn provider written by hand: a configuration error naming the factories", async () => {
    const { options, logger } = await server(() => ({
      id: "passkey",
      name: "Passkey",
      type: "webauthn",
    }));
    expectConfigurationError(await options());
    expect(loggedMessages(logger)).toEqual([
      expect.stringContaining("loaded by the WebAuthn() and Passkey() providers"),
    ]);
  });
});
