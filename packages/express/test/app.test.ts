/**
 * A small Express app over real HTTP (Express 5 here, Express 4 in express4.test.ts): the auth routes under /api/auth, a protected page and API
 * route, and a home page that reads the session.
 */
import {
  type GatehouseConfig,
  gatehouse,
  getCsrfToken,
  getSession,
  requireAuth,
} from "@gatehousejs/express";
import express, { type Express } from "express";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  alice,
  browser,
  credentialsConfig,
  EXPRESS,
  headerLines,
  rawRequest,
  SESSION_COOKIE,
  type Served,
  serve,
} from "./support.js";

/** The app: `before` adds middleware in front of the Gatehouse router. */
function buildApp(config: GatehouseConfig, before?: (app: Express) => void): Express {
  const app = express();
  before?.(app);
  app.use(gatehouse(config));
  app.get("/account", requireAuth(), (_req, res) => {
    res.json({ email: res.locals.session?.user.email ?? null });
  });
  app.get("/welcome-only", requireAuth({ redirectTo: "/welcome" }), (_req, res) => {
    res.send("secret");
  });
  app.get("/both", requireAuth(), async (req, res) => {
    const session = await getSession(req, res);
    res.json({ same: session === res.locals.session });
  });
  app.get("/bye", async (req, res) => {
    res.json({ csrfToken: await getCsrfToken(req, res) });
  });
  app.get("/quiet", async (req, res) => {
    const session = await getSession(req);
    res.json({ user: session?.user ?? null });
  });
  app.get("/", async (req, res) => {
    const session = await getSession(req, res);
    res.json({ user: session?.user ?? null });
  });
  // Everything else is members-only, whatever its path.
  app.use(requireAuth(), (_req, res) => {
    res.send("members");
  });
  return app;
}

describe(EXPRESS, () => {
  test("the package's router is this Express's own Router", () => {
    const router = gatehouse(credentialsConfig());
    // Each Router has the methods of its own Express: the same functions, not lookalikes.
    expect(router.use).toBe(express.Router().use);
    expect(router.route).toBe(express.Router().route);
  });

  describe("an app with gatehouse()", () => {
    let served: Served;
    beforeAll(async () => {
      // Every session read renews the cookie (`updateAge: 0`), so the forwarding shows.
      served = await serve(buildApp(credentialsConfig({ session: { updateAge: 0 } })));
    });
    afterAll(() => served.close());

    test("signs in with credentials: CSRF token, session cookie, session", async () => {
      const client = browser(served.origin);
      const callback = await client.signIn();
      expect(callback.status).toBe(302);
      expect(callback.headers.get("location")).toBe(`${served.origin}/account`);
      expect(client.jar.names()).toContain(SESSION_COOKIE);
      expect((await client.session())?.user).toMatchObject({
        name: alice.name,
        email: alice.email,
      });
      const home = await client.fetch("/");
      expect(((await home.json()) as { user: unknown }).user).toMatchObject({ email: alice.email });
    });

    test("getSession(req, res) puts the renewed session cookie on the page's response, once", async () => {
      const client = browser(served.origin);
      await client.signIn();
      const renewed = (response: Response) =>
        response.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION_COOKIE}=`));
      const home = await client.fetch("/");
      expect(renewed(home)).toHaveLength(1);
      expect(renewed(home)[0]).toMatch(/HttpOnly/i);
      // requireAuth() and the route read the session once, and the cookie goes out once.
      const both = await client.fetch("/both");
      expect(await both.json()).toEqual({ same: true });
      expect(renewed(both)).toHaveLength(1);
      // Without `res`, the response is left alone.
      const quiet = await client.fetch("/quiet");
      expect(((await quiet.json()) as { user: unknown }).user).toMatchObject({
        email: alice.email,
      });
      expect(renewed(quiet)).toHaveLength(0);
    });

    test("a wrong password signs nobody in", async () => {
      const client = browser(served.origin);
      const callback = await client.signIn("wrong");
      expect(callback.status).toBe(302);
      expect(callback.headers.get("location")).toContain("error=CredentialsSignin");
      expect(client.jar.names()).not.toContain(SESSION_COOKIE);
      expect(await client.session()).toBeNull();
    });

    test("a protected API call without a session is a 401 JSON, with one a 200", async () => {
      const client = browser(served.origin);
      const denied = await client.fetch("/account", { headers: { accept: "application/json" } });
      expect(denied.status).toBe(401);
      expect(denied.headers.get("cache-control")).toBe("no-store");
      expect(await denied.json()).toEqual({ error: "Unauthenticated", message: "Sign in first." });
      // fetch()'s own Accept (*/*) is an API call too, as is a POST.
      expect((await client.fetch("/account")).status).toBe(401);
      expect((await client.fetch("/anything", { method: "POST" })).status).toBe(401);
      await client.signIn();
      const allowed = await client.fetch("/account", { headers: { accept: "application/json" } });
      expect(allowed.status).toBe(200);
      expect(await allowed.json()).toEqual({ email: alice.email });
    });

    test("a protected page without a session redirects to sign in and back", async () => {
      const client = browser(served.origin);
      const page = await client.fetch("/account?tab=keys", {
        headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
      });
      expect(page.status).toBe(302);
      expect(page.headers.get("location")).toBe(
        `/api/auth/signin?callbackUrl=${encodeURIComponent("/account?tab=keys")}`,
      );
      // The sign-in page that answers it is Gatehouse's.
      const signIn = await client.fetch(page.headers.get("location")!, {
        headers: { accept: "text/html" },
      });
      expect(signIn.status).toBe(200);
      expect(await signIn.text()).toContain("<form");
    });

    test("the callbackUrl is always a path of this site", async () => {
      const answer = await rawRequest(served.port, {
        path: "//evil.example/steal",
        headers: { accept: "text/html" },
      });
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe(
        `/api/auth/signin?callbackUrl=${encodeURIComponent("/evil.example/steal")}`,
      );
    });

    test("redirectTo sends signed-out visitors of pages to a fixed path", async () => {
      const page = await browser(served.origin).fetch("/welcome-only", {
        headers: { accept: "text/html" },
      });
      expect(page.status).toBe(302);
      expect(page.headers.get("location")).toBe("/welcome");
      expect(() => requireAuth({ redirectTo: "https://evil.example/" })).toThrow(TypeError);
      expect(() => requireAuth({ redirectTo: "//evil.example" })).toThrow(TypeError);
    });

    test("signs out: the session cookie is cleared and the protected route refuses again", async () => {
      const client = browser(served.origin);
      await client.signIn();
      expect((await client.fetch("/account")).status).toBe(200);
      const csrfToken = await client.csrf();
      const signOut = await client.fetch("/api/auth/signout", {
        method: "POST",
        body: new URLSearchParams({ csrfToken, callbackUrl: `${served.origin}/` }),
      });
      expect(signOut.status).toBe(302);
      expect(signOut.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=;`))).toBe(
        true,
      );
      expect(client.jar.names()).not.toContain(SESSION_COOKIE);
      expect(await client.session()).toBeNull();
      expect((await client.fetch("/account")).status).toBe(401);
    });

    test("a page the app renders gets a CSRF token for its sign-out form", async () => {
      const client = browser(served.origin);
      await client.signIn();
      client.jar.cookies.delete("authjs.csrf-token");
      const page = await client.fetch("/bye");
      // No valid CSRF cookie: a new token, and the cookie that vouches for it on the page.
      expect(page.headers.getSetCookie().some((c) => c.startsWith("authjs.csrf-token="))).toBe(
        true,
      );
      const { csrfToken } = (await page.json()) as { csrfToken: string };
      const again = await client.fetch("/bye");
      expect(again.headers.getSetCookie()).toEqual([]);
      expect(await again.json()).toEqual({ csrfToken });
      const signOut = await client.fetch("/api/auth/signout", {
        method: "POST",
        body: new URLSearchParams({ csrfToken }),
      });
      expect(signOut.status).toBe(302);
      expect(client.jar.names()).not.toContain(SESSION_COOKIE);
    });

    test("a missing CSRF token is refused as core refuses it (to the error, never a 500)", async () => {
      const client = browser(served.origin);
      await client.csrf();
      const credentials = new URLSearchParams({ username: "alice", password: "wonderland" });
      // A browser's form goes to the sign-in page with the error, as Auth.js does.
      const form = await client.fetch("/api/auth/callback/credentials", {
        method: "POST",
        body: credentials,
      });
      expect(form.status).toBe(302);
      expect(new URL(form.headers.get("location")!).searchParams.get("error")).toBe("MissingCSRF");
      // The browser client's JSON call gets the same answer as JSON.
      const json = await client.fetch("/api/auth/callback/credentials", {
        method: "POST",
        headers: { "x-auth-return-redirect": "1" },
        body: credentials,
      });
      expect(json.status).toBe(200);
      expect(((await json.json()) as { url: string }).url).toContain("error=MissingCSRF");
      // A forged token is no better than none.
      const forged = await client.fetch("/api/auth/callback/credentials", {
        method: "POST",
        body: new URLSearchParams({
          csrfToken: "forged",
          username: "alice",
          password: "wonderland",
        }),
      });
      expect(forged.headers.get("location")).toContain("error=MissingCSRF");
      expect(client.jar.names()).not.toContain(SESSION_COOKIE);
      // A sign-out without the token signs nobody out.
      const signedIn = browser(served.origin);
      await signedIn.signIn();
      const signOut = await signedIn.fetch("/api/auth/signout", {
        method: "POST",
        body: new URLSearchParams({}),
      });
      expect(signOut.status).toBe(302);
      expect(signOut.headers.get("location")).toContain("error=MissingCSRF");
      expect((await signedIn.session())?.user?.email).toBe(alice.email);
    });

    test("several Set-Cookie headers arrive as separate header lines", async () => {
      const client = browser(served.origin);
      const csrfToken = await client.csrf();
      const answer = await rawRequest(served.port, {
        method: "POST",
        path: "/api/auth/callback/credentials",
        headers: {
          cookie: client.jar.header(),
          "content-type": "application/x-www-form-urlencoded",
        },
        chunks: [
          new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }).toString(),
        ],
      });
      expect(answer.status).toBe(302);
      const lines = headerLines(answer.rawHeaders, "set-cookie");
      expect(lines.length).toBeGreaterThanOrEqual(2);
      // One cookie per line: every line starts with its own name=value and has one Path.
      for (const line of lines) expect(line.match(/;\s*Path=/gi)).toHaveLength(1);
      expect(lines.some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
    });

    test("an unknown action under the prefix is Gatehouse's 400; a path outside it is the app's", async () => {
      const client = browser(served.origin);
      expect((await client.fetch("/api/auth/nope")).status).toBe(400);
      expect((await client.fetch("/api/authx", { headers: { accept: "text/html" } })).status).toBe(
        302,
      );
    });

    test("a Host header that makes no URL is a 400, and the server goes on", async () => {
      const answer = await rawRequest(served.port, {
        path: "/api/auth/session",
        headers: { host: "bad host" },
      });
      expect(answer.status).toBe(400);
      expect((await browser(served.origin).fetch("/api/auth/session")).status).toBe(200);
    });
  });

  describe("a prefix with characters Express's path patterns read", () => {
    // Express 4 reads `(`, `+`, `$`, `[` in a mount path as a pattern and never matches the
    // path; Express 5 throws on `(`, `*`, `:`, `!`. The router compares the prefix as text.
    test.each(["/auth(v2)", "/api/auth+", "/api/$auth", "/auth:internal", "/auth*", "/a[b]!"])(
      "%s is matched as the text it is",
      async (prefix) => {
        const app = express();
        app.use(gatehouse(credentialsConfig({ prefix })));
        app.use((_req, res) => {
          res.status(404).send("the app's");
        });
        const served = await serve(app);
        try {
          const csrf = await fetch(`${served.origin}${prefix}/csrf`);
          expect(csrf.status).toBe(200);
          expect(((await csrf.json()) as { csrfToken: string }).csrfToken).toMatch(/\w{16}/);
          const providers = await fetch(`${served.origin}${prefix}/providers`);
          const { credentials } = (await providers.json()) as Record<string, { signinUrl: string }>;
          expect(credentials?.signinUrl).toBe(`${served.origin}${prefix}/signin/credentials`);
          // What only looks like the prefix to a pattern is the app's.
          const lookalike = await fetch(`${served.origin}${prefix.replace(/\W+$/, "")}x/csrf`);
          expect(await lookalike.text()).toBe("the app's");
        } finally {
          await served.close();
        }
      },
    );
  });

  describe("cookies the app sets itself", () => {
    test("stay beside Gatehouse's, each on its own line", async () => {
      const served = await serve(
        buildApp(credentialsConfig(), (app) =>
          app.use((_req, res, next) => {
            res.cookie("app-pref", "dark");
            next();
          }),
        ),
      );
      try {
        const answer = await rawRequest(served.port, { path: "/api/auth/csrf" });
        const lines = headerLines(answer.rawHeaders, "set-cookie");
        expect(lines.some((l) => l.startsWith("app-pref=dark"))).toBe(true);
        expect(lines.some((l) => l.startsWith("authjs.csrf-token="))).toBe(true);
      } finally {
        await served.close();
      }
    });
  });

  describe("getSession without the router", () => {
    test("says the router must be mounted first", async () => {
      const app = express();
      app.get("/", async (req, res) => {
        try {
          await getSession(req);
          res.send("read");
        } catch (error) {
          res.status(500).send((error as Error).message);
        }
      });
      const served = await serve(app);
      try {
        const answer = await fetch(`${served.origin}/`);
        expect(answer.status).toBe(500);
        expect(await answer.text()).toContain("app.use(gatehouse(config))");
      } finally {
        await served.close();
      }
    });
  });
});
