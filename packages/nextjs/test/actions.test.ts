/**
 * `signIn`, `signOut` and `unstable_update` in Server Actions: the auth route's actions run
 * in-process, their cookies set through `cookies().set`, their redirects made with Next's
 * `redirect()`, and a refused credentials sign-in thrown to the caller.
 */
import { customFetch } from "@gatehousejs/core";
import GitHub from "@gatehousejs/core/providers/github";
import OIDC from "@gatehousejs/core/providers/oidc";
import Gatehouse, { CredentialsSignin } from "@gatehousejs/nextjs";
import { describe, expect, it, vi } from "vitest";
import { RedirectSignal, type SetCall, serve } from "./next-mock.js";
import { alice, credentialsConfig, ORIGIN, SESSION_COOKIE, signedInCookie } from "./support.js";

vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders);
vi.mock("next/navigation", async () => (await import("./next-mock.js")).nextNavigation);

/** The location a call redirected to (it must have). */
async function redirected(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof RedirectSignal)) throw new Error(`expected a redirect, got ${error}`);
  return error.location;
}

function sessionSet(sets: SetCall[]): SetCall | undefined {
  return sets.find((s) => s.name === SESSION_COOKIE);
}

/** A form as a Server Action receives it, with the field Next.js adds. */
function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  data.set("$ACTION_ID_abc123", "");
  for (const [key, value] of Object.entries(fields)) data.set(key, value);
  return data;
}

describe("signIn in a Server Action", () => {
  it("signs in with credentials from a form: the session cookie is set, then a redirect to redirectTo", async () => {
    const config = credentialsConfig();
    const { signIn, auth } = Gatehouse(config);
    const sets = serve({ writable: true, headers: { referer: `${ORIGIN}/login` } });
    const location = await redirected(
      signIn(
        "credentials",
        form({ username: "alice", password: "wonderland", redirectTo: "/dashboard" }),
      ),
    );
    expect(new URL(location, ORIGIN).pathname).toBe("/dashboard");
    const cookie = sessionSet(sets);
    expect(cookie).toMatchObject({ options: { httpOnly: true, sameSite: "lax", path: "/" } });
    serve({ cookie: `${SESSION_COOKIE}=${cookie?.value}` });
    expect((await auth())?.user?.email).toBe(alice.email);
  });

  it("throws CredentialsSignin to the caller for a refused sign-in, and sets no session", async () => {
    const { signIn } = Gatehouse(credentialsConfig());
    const sets = serve({ writable: true });
    await expect(
      signIn("credentials", form({ username: "alice", password: "wrong" })),
    ).rejects.toBeInstanceOf(CredentialsSignin);
    expect(sessionSet(sets)).toBeUndefined();
  });

  it("returns the URL instead of redirecting with redirect: false", async () => {
    const { signIn } = Gatehouse(credentialsConfig());
    const sets = serve({ writable: true });
    const url = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirectTo: "/after",
      redirect: false,
    });
    expect(new URL(url, ORIGIN).pathname).toBe("/after");
    expect(sessionSet(sets)?.value).toBeTruthy();
  });

  it("comes back to the page the form was on (its Referer) without redirectTo", async () => {
    const { signIn } = Gatehouse(credentialsConfig());
    serve({ writable: true, headers: { referer: `${ORIGIN}/somewhere?x=1` } });
    const location = await redirected(
      signIn("credentials", form({ username: "alice", password: "wonderland" })),
    );
    expect(location).toBe(`${ORIGIN}/somewhere?x=1`);
  });

  it("goes to the sign-in page without a provider, or for one the config does not have", async () => {
    const { signIn } = Gatehouse(credentialsConfig());
    serve({ writable: true });
    expect(await redirected(signIn(undefined, { redirectTo: "/account" }))).toBe(
      "/api/auth/signin?callbackUrl=%2Faccount",
    );
    expect(await redirected(signIn("nope", { redirectTo: "/account" }))).toBe(
      "/api/auth/signin?callbackUrl=%2Faccount",
    );
  });

  it("redirects to an OAuth provider's authorization URL, with its state cookies set", async () => {
    const { signIn } = Gatehouse(
      credentialsConfig({
        providers: [GitHub({ clientId: "client-id", clientSecret: "client-secret" })],
      }),
    );
    const sets = serve({ writable: true });
    const location = new URL(await redirected(signIn("github", { redirectTo: "/account" })));
    expect(location.origin).toBe("https://github.com");
    expect(location.searchParams.get("client_id")).toBe("client-id");
    expect(location.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/api/auth/callback/github`);
    expect(sets.length).toBeGreaterThan(0);
  });

  it("takes an OAuth provider's credentials from AUTH_<ID>_ID and AUTH_<ID>_SECRET", async () => {
    process.env.AUTH_GITHUB_ID = "id-from-env";
    process.env.AUTH_GITHUB_SECRET = "secret-from-env";
    try {
      const { signIn } = Gatehouse(credentialsConfig({ providers: [GitHub] }));
      serve({ writable: true });
      const location = new URL(await redirected(signIn("github", { redirectTo: "/" })));
      expect(location.searchParams.get("client_id")).toBe("id-from-env");
    } finally {
      delete process.env.AUTH_GITHUB_ID;
      delete process.env.AUTH_GITHUB_SECRET;
    }
  });

  it("adds authorization parameters to the provider's request", async () => {
    const { signIn } = Gatehouse(
      credentialsConfig({
        providers: [GitHub({ clientId: "client-id", clientSecret: "client-secret" })],
      }),
    );
    serve({ writable: true });
    const location = new URL(
      await redirected(signIn("github", { redirectTo: "/" }, { login: "alice" })),
    );
    expect(location.searchParams.get("login")).toBe("alice");
  });
});

describe("signOut in a Server Action", () => {
  it("ends the session, clears its cookie and redirects to redirectTo", async () => {
    const config = credentialsConfig();
    const { signOut } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const sets = serve({ writable: true, cookie: `${SESSION_COOKIE}=${cookie}` });
    const location = await redirected(signOut({ redirectTo: "/bye" }));
    expect(new URL(location, ORIGIN).pathname).toBe("/bye");
    const cleared = sessionSet(sets);
    expect(cleared?.value).toBe("");
    expect(cleared?.options.maxAge === 0 || (cleared?.options.expires as Date) < new Date()).toBe(
      true,
    );
  });
});

describe("signOut with federated", () => {
  /** An OpenID provider whose discovery (served by a stub fetch) names an end-session endpoint. */
  function idp() {
    const issuer = "https://idp.example/realm";
    const document = {
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      end_session_endpoint: `${issuer}/logout`,
    };
    return OIDC({
      id: "idp",
      issuer,
      clientId: "demo-client",
      clientSecret: "secret",
      [customFetch]: (async () =>
        new Response(JSON.stringify(document), {
          headers: { "content-type": "application/json" },
        })) as typeof fetch,
    } as Parameters<typeof OIDC>[0]);
  }

  it("ends the session here, then sends the browser through the provider's end-session page back to redirectTo", async () => {
    const base = credentialsConfig();
    const config = { ...base, providers: [...(base.providers ?? []), idp()] };
    const { signOut } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const sets = serve({ writable: true, cookie: `${SESSION_COOKIE}=${cookie}` });
    const location = new URL(await redirected(signOut({ redirectTo: "/bye", federated: true })));
    expect(`${location.origin}${location.pathname}`).toBe("https://idp.example/realm/logout");
    expect(location.searchParams.get("client_id")).toBe("demo-client");
    expect(location.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/bye`);
    expect(sessionSet(sets)?.value).toBe("");
  });

  it("without federated, only the session here ends", async () => {
    const base = credentialsConfig();
    const config = { ...base, providers: [...(base.providers ?? []), idp()] };
    const { signOut } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    serve({ writable: true, cookie: `${SESSION_COOKIE}=${cookie}` });
    const location = await redirected(signOut({ redirectTo: "/bye" }));
    expect(new URL(location, ORIGIN).href).toBe(`${ORIGIN}/bye`);
  });
});

describe("unstable_update", () => {
  it("runs the jwt callback with trigger update and re-issues the session", async () => {
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token, trigger, session }) =>
          trigger === "update" ? { ...token, name: (session as { name: string }).name } : token,
      },
    });
    const { unstable_update } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const sets = serve({ writable: true, cookie: `${SESSION_COOKIE}=${cookie}` });
    const session = await unstable_update({ name: "Alice Liddell" });
    expect(session?.user?.name).toBe("Alice Liddell");
    expect(sessionSet(sets)?.value).toBeTruthy();
  });
});
