import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { SolidAuth, type SolidAuthConfig } from "@gatehousejs/solid-start";
import Passkey from "@gatehousejs/solid-start/providers/passkey";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  alice,
  appRequest,
  credentialsConfig,
  eventShapes,
  Jar,
  ORIGIN,
  SECRET,
  SESSION_COOKIE,
} from "./support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

/** Runs a request through a handler pair the way SolidStart does: by method. */
async function call(
  handlers: ReturnType<typeof SolidAuth>,
  makeEvent: (request: Request) => { request: Request },
  request: Request,
): Promise<Response | undefined> {
  const handler = request.method === "POST" ? handlers.POST : handlers.GET;
  return handler(makeEvent(request));
}

/** Like {@link call}, for a request the handler must answer. */
async function answer(
  handlers: ReturnType<typeof SolidAuth>,
  makeEvent: (request: Request) => { request: Request },
  request: Request,
  jar?: Jar,
): Promise<Response> {
  const response = await call(handlers, makeEvent, request);
  if (!response) throw new Error(`${request.method} ${request.url} fell through`);
  jar?.apply(response);
  return response;
}

async function csrfToken(
  handlers: ReturnType<typeof SolidAuth>,
  makeEvent: (request: Request) => { request: Request },
  jar: Jar,
  prefix = "/api/auth",
): Promise<string> {
  const response = await answer(handlers, makeEvent, appRequest(`${prefix}/csrf`, jar), jar);
  const body = (await response.json()) as { csrfToken: string };
  return body.csrfToken;
}

describe.each(eventShapes)("SolidAuth with a %s event", (_, makeEvent) => {
  const config = credentialsConfig();
  const handlers = SolidAuth(config);

  test("GET /api/auth/providers lists the providers with URLs under the prefix", async () => {
    const response = await answer(handlers, makeEvent, appRequest("/api/auth/providers"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${ORIGIN}/api/auth/signin/credentials`,
        callbackUrl: `${ORIGIN}/api/auth/callback/credentials`,
      },
    });
  });

  test("GET /api/auth/csrf answers a token and sets the CSRF cookie", async () => {
    const jar = new Jar();
    const token = await csrfToken(handlers, makeEvent, jar);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(jar.get("authjs.csrf-token")).toMatch(new RegExp(`^${token}%7C[0-9a-f]{64}$`));
  });

  test("GET /api/auth/session without a cookie answers null", async () => {
    const response = await answer(handlers, makeEvent, appRequest("/api/auth/session"));
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
  });

  test("GET /api/auth/signin renders the sign-in page, posting under the prefix", async () => {
    const response = await answer(handlers, makeEvent, appRequest("/api/auth/signin"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toContain(`action="${ORIGIN}/api/auth/callback/credentials"`);
  });

  test("credentials sign-in end to end: session cookie, session, sign-out", async () => {
    const jar = new Jar();
    const token = await csrfToken(handlers, makeEvent, jar);
    const signIn = await answer(
      handlers,
      makeEvent,
      appRequest("/api/auth/callback/credentials", jar, {
        form: { csrfToken: token, username: "alice", password: "wonderland", callbackUrl: "/me" },
      }),
      jar,
    );
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("location")).toBe(`${ORIGIN}/me`);
    expect(jar.get(SESSION_COOKIE)).toBeTruthy();

    const session = await answer(handlers, makeEvent, appRequest("/api/auth/session", jar), jar);
    expect(await session.json()).toMatchObject({
      user: { name: alice.name, email: alice.email },
      expires: expect.any(String),
    });

    const signOut = await answer(
      handlers,
      makeEvent,
      appRequest("/api/auth/signout", jar, { form: { csrfToken: token } }),
      jar,
    );
    expect(signOut.status).toBe(302);
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
    const after = await answer(handlers, makeEvent, appRequest("/api/auth/session", jar));
    expect(await after.json()).toBeNull();
  });

  test("a wrong password is sent back to the sign-in page with error=CredentialsSignin", async () => {
    const jar = new Jar();
    const token = await csrfToken(handlers, makeEvent, jar);
    const response = await answer(
      handlers,
      makeEvent,
      appRequest("/api/auth/callback/credentials", jar, {
        form: { csrfToken: token, username: "alice", password: "nope" },
      }),
      jar,
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("error")).toBe("CredentialsSignin");
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
  });

  test("GET /api/auth/error and /api/auth/verify-request render their pages", async () => {
    const error = await answer(
      handlers,
      makeEvent,
      appRequest("/api/auth/error?error=AccessDenied"),
    );
    expect(error.status).toBe(403);
    expect(await error.text()).toContain("<html");
    const verify = await answer(handlers, makeEvent, appRequest("/api/auth/verify-request"));
    expect(verify.status).toBe(200);
    expect(await verify.text()).toContain("<html");
  });

  test("GET /api/auth/webauthn-options/passkey is routed to the passkey provider", async () => {
    const passkeyConfig: SolidAuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
    };
    const response = await answer(
      SolidAuth(passkeyConfig),
      makeEvent,
      appRequest("/api/auth/webauthn-options/passkey?action=register&email=a@example.com"),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      action: string;
      options: { rp: { id: string }; challenge: string };
    };
    expect(body.action).toBe("register");
    expect(body.options.rp.id).toBe("localhost");
    expect(body.options.challenge).toEqual(expect.any(String));
  });

  test("paths outside the prefix fall through (undefined), for GET and POST", async () => {
    for (const path of ["/", "/api", "/api/authx/session", "/api/auth-other", "/x/api/auth/csrf"]) {
      expect(await call(handlers, makeEvent, appRequest(path))).toBeUndefined();
      expect(
        await call(handlers, makeEvent, appRequest(path, undefined, { form: { a: "b" } })),
      ).toBeUndefined();
    }
  });

  test("an unknown action under the prefix is core's 400 UnknownAction, not a 500", async () => {
    for (const path of ["/api/auth/nope", "/api/auth", "/api/auth/"]) {
      const response = await answer(handlers, makeEvent, appRequest(path));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "UnknownAction" });
    }
  });
});

describe("SolidAuth configuration", () => {
  test("a custom prefix becomes the base path; /api/auth then falls through", async () => {
    const handlers = SolidAuth(credentialsConfig({ prefix: "/auth/gate/" }));
    const event = eventShapes[0][1];
    const response = await handlers.GET(event(appRequest("/auth/gate/providers")));
    expect(response?.status).toBe(200);
    const body = (await response?.json()) as { credentials: { signinUrl: string } };
    expect(body.credentials.signinUrl).toBe(`${ORIGIN}/auth/gate/signin/credentials`);
    expect(await handlers.GET(event(appRequest("/api/auth/providers")))).toBeUndefined();
  });

  test("a prefix without a leading slash is read with one", async () => {
    const handlers = SolidAuth(credentialsConfig({ prefix: "gate" }));
    const response = await handlers.GET({ request: appRequest("/gate/session") });
    expect(response?.status).toBe(200);
  });

  test("the site root as prefix is refused when the route is declared", () => {
    expect(() => SolidAuth(credentialsConfig({ prefix: "/" }))).toThrow(TypeError);
    expect(() => SolidAuth(credentialsConfig({ prefix: "" }))).toThrow(/prefix/);
  });

  test("the secret falls back to AUTH_SECRET, read once: the config is built on first use", async () => {
    vi.stubEnv("AUTH_SECRET", SECRET);
    const config = credentialsConfig({ secret: undefined });
    const handlers = SolidAuth(config);
    const jar = new Jar();
    const token = await csrfToken(handlers, eventShapes[0][1], jar);
    await answer(
      handlers,
      eventShapes[0][1],
      appRequest("/api/auth/callback/credentials", jar, {
        form: { csrfToken: token, username: "alice", password: "wonderland" },
      }),
      jar,
    );
    expect(jar.get(SESSION_COOKIE)).toBeTruthy();
    // A later change of the environment does not reach the built configuration.
    vi.stubEnv("AUTH_SECRET", "another-secret-another-secret-another");
    const session = await handlers.GET({ request: appRequest("/api/auth/session", jar) });
    expect(await session?.json()).toMatchObject({ user: { name: "Alice" } });
    // The user's object is left as it was.
    expect(config.secret).toBeUndefined();
    expect("basePath" in config).toBe(false);
  });

  test("AUTH_SECRET_1 joins AUTH_SECRET for rotation", async () => {
    vi.stubEnv("AUTH_SECRET", "the-new-secret-the-new-secret-0123456789");
    vi.stubEnv("AUTH_SECRET_1", SECRET);
    const oldJar = new Jar();
    const old = SolidAuth(credentialsConfig());
    const token = await csrfToken(old, eventShapes[1][1], oldJar);
    await answer(
      old,
      eventShapes[1][1],
      appRequest("/api/auth/callback/credentials", oldJar, {
        form: { csrfToken: token, username: "alice", password: "wonderland" },
      }),
      oldJar,
    );
    // A cookie sealed with SECRET is no longer decrypted by a config that only knows the new one...
    const onlyNew = SolidAuth(
      credentialsConfig({ secret: "the-new-secret-the-new-secret-0123456789" }),
    );
    const refused = await onlyNew.GET({ request: appRequest("/api/auth/session", oldJar) });
    expect(await refused?.json()).toBeNull();
    // ...but is by one that reads both from the environment (AUTH_SECRET_1 = SECRET).
    const rotated = SolidAuth(credentialsConfig({ secret: undefined }));
    const accepted = await rotated.GET({ request: appRequest("/api/auth/session", oldJar) });
    expect(await accepted?.json()).toMatchObject({ user: { name: "Alice" } });
  });

  test("trustHost: true by default outside production", async () => {
    vi.stubEnv("NODE_ENV", "development");
    vi.stubEnv("AUTH_TRUST_HOST", "");
    const handlers = SolidAuth(credentialsConfig({ trustHost: undefined }));
    const response = await handlers.GET({ request: appRequest("/api/auth/session") });
    expect(response?.status).toBe(200);
  });

  test("trustHost: in production without AUTH_TRUST_HOST nor url, the host is not trusted (a configuration error)", async () => {
    vi.stubEnv("NODE_ENV", "production");
    vi.stubEnv("AUTH_TRUST_HOST", "");
    vi.stubEnv("AUTH_URL", "");
    const logger = { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
    const handlers = SolidAuth(credentialsConfig({ trustHost: undefined, logger }));
    const response = await handlers.GET({ request: appRequest("/api/auth/session") });
    // Core treats it as the server's configuration problem, as Auth.js does.
    expect(response?.status).toBe(500);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(String(logger.error.mock.calls[0]?.[0])).toMatch(/^UntrustedHost/);
  });

  test("trustHost: AUTH_TRUST_HOST wins, in production too", async () => {
    vi.stubEnv("NODE_ENV", "production");
    vi.stubEnv("AUTH_TRUST_HOST", "true");
    const handlers = SolidAuth(credentialsConfig({ trustHost: undefined }));
    const response = await handlers.GET({ request: appRequest("/api/auth/session") });
    expect(response?.status).toBe(200);
  });

  test("trustHost: in production AUTH_URL pins the origin instead", async () => {
    vi.stubEnv("NODE_ENV", "production");
    vi.stubEnv("AUTH_TRUST_HOST", "");
    vi.stubEnv("AUTH_URL", ORIGIN);
    const handlers = SolidAuth(credentialsConfig({ trustHost: undefined }));
    const ok = await handlers.GET({ request: appRequest("/api/auth/session") });
    expect(ok?.status).toBe(200);
    const other = await handlers.GET({
      request: new Request("http://evil.example/api/auth/session"),
    });
    expect(other?.status).toBe(400);
  });
});
