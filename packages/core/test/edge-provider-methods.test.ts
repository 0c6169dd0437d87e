/**
 * A provider may carry its own sign-in method (`providerMethod`, lib/feature.ts), which the kernel
 * takes over the built-in method for its type. `WebAuthn()` and `Passkey()` carry theirs, so the
 * WebAuthn code (ceremonies, options, the page's passkey script) reaches an app's bundle only
 * with one of them: a credentials app's Workers bundle holds none of it. A `type: "webauthn"`
 * object written by hand carries nothing and is a configuration error that names the factories.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import Passkey from "@gatehousejs/core/providers/passkey";
import WebAuthn from "@gatehousejs/core/providers/webauthn";
import type { AuthConfig, Provider } from "@gatehousejs/core/types";
import { build } from "esbuild";
import { describe, expect, test } from "vitest";
import { type MethodDeclaration, providerMethod, withMethod } from "../src/lib/feature.js";
import { csrfToken, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";

const core = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The core source modules a Workers bundle of a worker with `providers` holds. */
async function bundledModules(imports: string, providers: string): Promise<string[]> {
  const source = `
    import { Auth } from "@gatehousejs/core";
    import Credentials from "@gatehousejs/core/providers/credentials";
    ${imports}
    const config = {
      secret: "edge-provider-methods-secret-0123456789abcdef",
      trustHost: true,
      experimental: { enableWebAuthn: true },
      providers: [Credentials({ authorize: async () => null }), ${providers}],
    };
    export default { fetch: (req) => Auth(req, config) };
  `;
  const result = await build({
    stdin: { contents: source, resolveDir: core, loader: "js" },
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    conditions: ["gatehouse-source", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["node:*", "@simplewebauthn/server"],
    minify: true,
    logLevel: "silent",
  });
  const [output] = Object.values(result.metafile.outputs);
  return Object.keys(output!.inputs).filter((p) => p.includes("src/"));
}

/** The WebAuthn method's working parts (what only a WebAuthn provider should bring). */
const webauthnCode = (modules: string[]) =>
  modules
    .filter((p) =>
      /lib\/sign-in\/webauthn\/(callback|options|ceremony|register|page-script)/.test(p),
    )
    .map((p) => p.replace(/.*lib\/sign-in\/webauthn\//, ""))
    .sort();

describe("where the WebAuthn code comes from in a Workers bundle", () => {
  test("a credentials app bundles none of the WebAuthn method or the passkey script", async () => {
    const modules = await bundledModules("", "");
    expect(modules.some((p) => p.endsWith("src/lib/auth.ts"))).toBe(true);
    expect(webauthnCode(modules)).toEqual([]);
  }, 30_000);

  test("an app with Passkey() bundles the method, the options and the page script", async () => {
    const modules = await bundledModules(
      'import Passkey from "@gatehousejs/core/providers/passkey";',
      "Passkey()",
    );
    expect(webauthnCode(modules)).toEqual([
      "callback.ts",
      "ceremony.ts",
      "options.ts",
      "page-script.ts",
      "register.ts",
    ]);
  }, 30_000);
});

function passkeyConfig(provider: Provider, logger = recordingLogger()): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter: MemoryAdapter(),
    logger,
    experimental: { enableWebAuthn: true },
    providers: [provider],
  };
}

const errorMessages = (logger: ReturnType<typeof recordingLogger>) =>
  logger.error.mock.calls.map(([error]) => (error as Error).message);

describe("a provider's own method", () => {
  test("WebAuthn() and Passkey() carry the WebAuthn method, and a spread copy keeps it", async () => {
    expect((WebAuthn() as { [providerMethod]?: unknown })[providerMethod]).toBeDefined();
    const renamed = { ...Passkey(), id: "key", name: "Key" };
    const response = await Auth(
      new Request(`${ORIGIN}/auth/webauthn-options/key`),
      passkeyConfig(renamed),
    );
    expect(response.status).toBe(200);
    expect((await response.json()).action).toBe("authenticate");
  });

  test("a WebAuthn provider written by hand: its callback and options are configuration errors naming the factories", async () => {
    const logger = recordingLogger();
    const config = passkeyConfig({ id: "passkey", name: "Passkey", type: "webauthn" }, logger);
    const jar = new Jar();
    const callback = await send(config, jar, "/auth/callback/passkey", {
      form: { action: "authenticate", data: "{}" },
    });
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    const options = await send(config, jar, "/auth/webauthn-options/passkey");
    expect(options.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    const messages = errorMessages(logger);
    expect(messages).toHaveLength(2);
    for (const message of messages) {
      expect(message).toContain("loaded by the WebAuthn() and Passkey() providers");
    }
  });

  test("the sign-in page has the passkey script for Passkey(), and only the form and its error region for a hand-written provider", async () => {
    const page = async (provider: Provider) =>
      (await Auth(new Request(`${ORIGIN}/auth/signin`), passkeyConfig(provider))).text();
    const fields = { email: { label: "Email", autocomplete: "username webauthn" } };
    const made = await page(Passkey({ formFields: fields }));
    expect(made).toContain('<div id="passkey-error" aria-live="assertive"');
    expect(made).toMatch(/<script nonce="[^"]+">\(function \(settings\)/);
    expect(made).toContain('"optionsUrl":"http://localhost:3000/auth/webauthn-options/passkey"');
    const byHand = await page({
      id: "passkey",
      name: "Passkey",
      type: "webauthn",
      formFields: fields,
    } as Provider);
    expect(byHand).toContain('<form id="passkey-form"');
    expect(byHand).toContain('<div id="passkey-error" aria-live="assertive"');
    expect(byHand).not.toContain("<script");
  });

  test("a method a provider carries answers instead of the built-in one for its type", async () => {
    const own: MethodDeclaration = {
      types: ["credentials"],
      load: async () => ({
        callback: async () => ({ status: 418, headers: {}, body: "own method" }),
      }),
    };
    const provider = withMethod(Credentials({ authorize: () => null }), own);
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: recordingLogger(),
      providers: [provider],
    };
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: token },
    });
    expect(response.status).toBe(418);
    expect(await response.text()).toBe("own method");
  });

  test("a carried method for another provider type is ignored: the built-in method answers", async () => {
    const other: MethodDeclaration = {
      types: ["webauthn"],
      load: async () => ({ callback: async () => ({ status: 418, headers: {}, body: "" }) }),
    };
    const provider = withMethod(
      Credentials({
        credentials: { password: { type: "password" } },
        authorize: ({ password }) =>
          password === "pw" ? { id: "1", email: "a@example.com" } : null,
      }),
      other,
    );
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: recordingLogger(),
      providers: [provider],
    };
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: token, password: "pw" },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(jar.cookies.has("authjs.session-token")).toBe(true);
  });
});
