/**
 * Plain HTTP only to loopback, on every request Gatehouse makes to a provider: a `wellKnown`
 * discovery URL and a plain OAuth 2 userinfo endpoint included.
 */
import { customFetch } from "@gatehousejs/core";
import type { AuthConfig, OAuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";

function recordingFetch(answer: (url: string) => Response) {
  return vi.fn(async (input: string | URL | Request) => {
    const url = input instanceof Request ? input.url : String(input);
    return answer(url);
  });
}

function config(provider: OAuthConfig): AuthConfig {
  return { secret: SECRET, trustHost: true, logger: recordingLogger(), providers: [provider] };
}

async function startSignIn(cfg: AuthConfig, jar: Jar, id: string) {
  const csrf = await send(cfg, jar, "/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  return send(cfg, jar, `/auth/signin/${id}`, { form: { csrfToken } });
}

describe("plain HTTP to a host that is not loopback is never used", () => {
  test("a wellKnown discovery URL over http is refused before any request", async () => {
    const fetch = recordingFetch(() => Response.json({}));
    const cfg = config({
      id: "idp",
      name: "IdP",
      type: "oidc",
      clientId: "client-1",
      issuer: "https://idp.example",
      wellKnown: "http://idp.example/.well-known/openid-configuration",
      [customFetch]: fetch as unknown as typeof globalThis.fetch,
    });
    const response = await startSignIn(cfg, new Jar(), "idp");
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthSignin`);
    expect(fetch).not.toHaveBeenCalled();
  });

  test("a wellKnown URL on loopback over http is allowed", async () => {
    const fetch = recordingFetch(() =>
      Response.json({
        issuer: "https://idp.example",
        authorization_endpoint: "https://idp.example/authorize",
        token_endpoint: "https://idp.example/token",
      }),
    );
    const cfg = config({
      id: "idp",
      name: "IdP",
      type: "oidc",
      clientId: "client-2",
      issuer: "https://idp.example",
      wellKnown: "http://127.0.0.1:9/.well-known/openid-configuration",
      [customFetch]: fetch as unknown as typeof globalThis.fetch,
    });
    const response = await startSignIn(cfg, new Jar(), "idp");
    expect(new URL(response.headers.get("location")!).origin).toBe("https://idp.example");
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  test("a plain OAuth 2 userinfo endpoint over http gets no access token", async () => {
    const fetch = recordingFetch((url) =>
      url.startsWith("https://idp.example/token")
        ? Response.json({ access_token: "at-123456789", token_type: "bearer" })
        : Response.json({ id: "1", email: "a@example.com" }),
    );
    const cfg = config({
      id: "plain",
      name: "Plain",
      type: "oauth",
      clientId: "client-3",
      clientSecret: "secret-3",
      authorization: "https://idp.example/authorize",
      token: "https://idp.example/token",
      userinfo: "http://idp.example/userinfo",
      checks: ["state"],
      [customFetch]: fetch as unknown as typeof globalThis.fetch,
    });
    const jar = new Jar();
    const start = await startSignIn(cfg, jar, "plain");
    const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
    const callback = await send(cfg, jar, `/auth/callback/plain?code=c-1&state=${state}`);
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=OAuthCallbackError`);
    const urls = fetch.mock.calls.map(([input]) =>
      String(input instanceof Request ? input.url : input),
    );
    expect(urls.some((u) => u.startsWith("http://"))).toBe(false);
  });
});
