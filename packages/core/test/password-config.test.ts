/**
 * What a configuration with a password provider needs, refused when it is read (before any
 * request does anything), and the provider factory's checks of its options.
 */
import { join, resolve } from "node:path";
import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import Password from "@gatehousejs/core/providers/password";
import type { AuthConfig } from "@gatehousejs/core/types";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { credentialsConfig, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { passwordWorld } from "./password-world.js";

/** The error a configuration is refused with: its type and message, from the one log line. */
async function refusal(config: AuthConfig) {
  const logger = recordingLogger();
  const response = await Auth(new Request(`${ORIGIN}/auth/session`), { ...config, logger });
  expect(response.status).toBe(500);
  const [error] = logger.error.mock.calls.at(-1) as unknown as [{ type: string; message: string }];
  return { type: error.type, message: error.message };
}

const base = (overrides: Partial<AuthConfig> = {}): AuthConfig => ({
  secret: SECRET,
  trustHost: true,
  providers: [Password({ sendEmail: () => {} })],
  ...overrides,
});

describe("a configuration with a password provider is refused when it is read", () => {
  test("without an adapter", async () => {
    expect(await refusal(base())).toEqual({
      type: "MissingAdapter",
      message: "Password accounts need an adapter",
    });
  });

  test("with an adapter that lacks what password accounts need, named", async () => {
    const {
      getAccount: _a,
      updateAccount: _u,
      useVerificationToken: _v,
      ...adapter
    } = MemoryAdapter();
    expect(await refusal(base({ adapter, session: { strategy: "jwt" } }))).toEqual({
      type: "MissingAdapterMethods",
      message:
        "The adapter lacks methods this configuration needs: getAccount, updateAccount, useVerificationToken",
    });
  });

  test("letting unverified accounts sign in where their sessions cannot be ended", async () => {
    const config = base({
      adapter: MemoryAdapter(),
      session: { strategy: "jwt" },
      providers: [Password({ sendEmail: () => {}, requireEmailVerification: false })],
    });
    const { type, message } = await refusal(config);
    expect(type).toBe("AuthError");
    expect(message).toContain("requireEmailVerification: false");
    expect(message).toContain("session.revocation");
  });

  test("a complete configuration works", async () => {
    const response = await Auth(
      new Request(`${ORIGIN}/auth/session`),
      base({ adapter: MemoryAdapter(), logger: recordingLogger() }),
    );
    expect(response.status).toBe(200);
  });
});

describe("the factory refuses malformed options, naming them", () => {
  test.each([
    [{ policy: { minLength: 4 } }, "minLength"],
    [{ policy: { maxLength: 32 } }, "maxLength"],
    [{ maxAge: 0 }, "maxAge"],
    [{ fields: { parse: () => ({}) } }, "fields"],
    [{ hash: { N: 1000 } }, "scrypt parameters"],
  ] as const)("%j", (options, named) => {
    expect(() => Password(options as never)).toThrow(named);
  });

  test("defaults: id password, verification required, a sender over SMTP", () => {
    const provider = Password();
    expect(provider).toMatchObject({
      id: "password",
      name: "Password",
      type: "password",
      requireEmailVerification: true,
    });
    expect(typeof provider.sendEmail).toBe("function");
  });
});

describe("the routes", () => {
  test("answer only for a password provider", async () => {
    const config = credentialsConfig({ adapter: MemoryAdapter() });
    const response = await send(config, new Jar(), "/auth/signup/credentials");
    // The route declares its provider types: another type is the client's mistake.
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "InvalidProvider" });
  });

  test("need a provider in the path", async () => {
    const w = passwordWorld();
    for (const path of ["/auth/signup", "/auth/verify-email"]) {
      const response = await send(w.config, new Jar(), path);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "UnknownAction" });
    }
  });

  test("an unknown provider in the path is refused", async () => {
    const w = passwordWorld();
    const response = await send(w.config, new Jar(), "/auth/signup/nope");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "InvalidProvider" });
  });

  test("a Credentials provider and a password provider live side by side", async () => {
    const w = passwordWorld({
      providers: [Credentials({ credentials: { username: {} }, authorize: () => null })],
    });
    const response = await send(w.config, new Jar(), "/auth/providers");
    expect(Object.keys((await response.json()) as object)).toEqual(["password", "credentials"]);
  });
});

describe("what the built-ins bring", () => {
  test("the feature's declaration reaches none of the modules that add to the open lists", () => {
    // Installed with the built-ins, it is in every app's program (the types entry names
    // `AuthAction`): what the password provider adds (its provider and account type, its error,
    // the policy's warning) must come with the provider's module only, or every app's lists would
    // change (packages/core/test/open-lists.test.ts).
    const folder = resolve(import.meta.dirname, "../src/lib/features/password");
    const program = ts.createProgram([join(folder, "feature.ts")], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      noResolve: false,
    });
    const reached = program
      .getSourceFiles()
      .map((file) => file.fileName)
      .filter((name) => name.startsWith(folder))
      .map((name) => name.slice(folder.length + 1))
      .sort();
    expect(reached).toContain("void.ts");
    for (const augmenting of ["types.ts", "errors.ts", "options.ts", "policy.ts"]) {
      expect(reached).not.toContain(augmenting);
    }
  }, 30_000);
});
