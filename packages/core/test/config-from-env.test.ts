/**
 * What a new user meets in the first hour: `Auth()` reads `AUTH_SECRET`, `AUTH_TRUST_HOST` and
 * `AUTH_URL` itself, and configuration errors name the fix.
 */
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { alice, Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

function bareConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    logger: recordingLogger(),
    providers: [Credentials({ authorize: () => ({ ...alice }) })],
    ...overrides,
  };
}

function clearAuthEnv() {
  for (const name of [
    "AUTH_SECRET",
    "AUTH_SECRET_1",
    "AUTH_SECRET_2",
    "AUTH_SECRET_3",
    "AUTH_URL",
    "AUTH_TRUST_HOST",
    "VERCEL",
    "CF_PAGES",
  ]) {
    vi.stubEnv(name, "");
  }
}

const firstError = (config: AuthConfig) =>
  (config.logger as ReturnType<typeof recordingLogger>).error.mock.calls[0]?.[0];

describe("Auth() reads the environment when the configuration leaves a value unset", () => {
  test("AUTH_SECRET and AUTH_TRUST_HOST", async () => {
    clearAuthEnv();
    vi.stubEnv("AUTH_SECRET", SECRET);
    vi.stubEnv("AUTH_TRUST_HOST", "true");
    const config = bareConfig();
    const response = await send(config, new Jar(), "/auth/csrf");
    expect(response.status).toBe(200);
    expect(firstError(config)).toBeUndefined();
  });

  test("AUTH_URL pins the origin and stands in for trustHost", async () => {
    clearAuthEnv();
    vi.stubEnv("AUTH_SECRET", SECRET);
    vi.stubEnv("AUTH_URL", ORIGIN);
    const config = bareConfig();
    expect((await send(config, new Jar(), "/auth/csrf")).status).toBe(200);
  });

  test("AUTH_TRUST_HOST=false keeps the host untrusted", async () => {
    clearAuthEnv();
    vi.stubEnv("AUTH_SECRET", SECRET);
    vi.stubEnv("AUTH_TRUST_HOST", "false");
    const config = bareConfig();
    expect((await send(config, new Jar(), "/auth/csrf")).status).toBe(500);
    expect(firstError(config)).toMatchObject({ type: "UntrustedHost" });
  });

  test("values in the configuration win over the environment", async () => {
    clearAuthEnv();
    vi.stubEnv("AUTH_SECRET", "an-environment-secret-that-is-long-enough-000");
    vi.stubEnv("AUTH_TRUST_HOST", "true");
    const config = bareConfig({ secret: SECRET });
    const jar = new Jar();
    await send(config, jar, "/auth/csrf");
    // The CSRF cookie validates under the configured secret, not the environment's.
    const other = bareConfig({ secret: SECRET, trustHost: true });
    const again = await send(other, jar, "/auth/csrf");
    expect(again.headers.getSetCookie()).toEqual([]);
  });

  test("without either, the errors name the environment variables", async () => {
    clearAuthEnv();
    const noSecret = bareConfig({ trustHost: true });
    await send(noSecret, new Jar(), "/auth/csrf");
    expect(firstError(noSecret)).toMatchObject({ type: "MissingSecret" });
    expect(firstError(noSecret)!.message).toContain("AUTH_SECRET");
    const untrusted = bareConfig({ secret: SECRET });
    await send(untrusted, new Jar(), "/auth/csrf");
    expect(firstError(untrusted)).toMatchObject({ type: "UntrustedHost" });
    expect(firstError(untrusted)!.message).toMatch(/AUTH_URL.*AUTH_TRUST_HOST/);
  });
});

describe("configuration errors that name the fix", () => {
  test("an OAuth provider without a client id names AUTH_<ID>_ID, and nobody is sent off", async () => {
    clearAuthEnv();
    const config = bareConfig({
      secret: SECRET,
      trustHost: true,
      providers: [OIDC({ id: "my-idp", name: "My IdP", issuer: "https://idp.example" })],
    });
    const jar = new Jar();
    const response = await send(config, jar, "/auth/signin/my-idp", {
      form: { csrfToken: "irrelevant" },
    });
    expect(response.headers.get("location") ?? "").not.toContain("client_id=");
    expect(firstError(config)).toMatchObject({ type: "InvalidProvider" });
    expect(firstError(config)!.message).toContain("AUTH_MY_IDP_ID");
  });

  test("the client id from AUTH_<ID>_ID satisfies the check", async () => {
    clearAuthEnv();
    vi.stubEnv("AUTH_MY_IDP_ID", "from-env");
    const config = bareConfig({
      secret: SECRET,
      trustHost: true,
      providers: [OIDC({ id: "my-idp", name: "My IdP", issuer: "https://idp.example" })],
    });
    expect((await send(config, new Jar(), "/auth/providers")).status).toBe(200);
  });

  test("a request outside basePath says which basePath is configured", async () => {
    const config = bareConfig({ secret: SECRET, trustHost: true, basePath: "/api/auth" });
    const response = await Auth(new Request(`${ORIGIN}/auth/session`), config);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("UnknownAction");
    expect(body.message).toContain('"/api/auth"');
  });

  test("an unknown action inside basePath keeps the plain message", async () => {
    const config = bareConfig({ secret: SECRET, trustHost: true });
    const response = await Auth(new Request(`${ORIGIN}/auth/nope`), config);
    const body = (await response.json()) as { message: string };
    expect(body.message).not.toContain("basePath");
  });

  test.each([
    ["a short secret", "too-short", 1],
    ["one short secret in a rotation list", [SECRET, "short"], 1],
    ["32 characters", "x".repeat(32), 0],
  ])("%s: weak-secret warnings %#", async (_name, secret, warnings) => {
    const config = bareConfig({ secret, trustHost: true });
    await send(config, new Jar(), "/auth/session");
    await send(config, new Jar(), "/auth/session");
    const warn = (config.logger as ReturnType<typeof recordingLogger>).warn;
    expect(warn.mock.calls.filter(([code]) => code === "weak-secret")).toHaveLength(warnings);
  });
});
