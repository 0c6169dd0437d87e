/**
 * authMiddleware and requireSession in a real SolidStart 1.x app, over HTTP: the real router
 * decides what each spelling of a path renders, and no spelling may render the protected
 * `/admin/[id]` page without a session. Also the way back: a signed-out visitor goes to the
 * sign-in page with `callbackUrl` set to the page, and signing in returns there.
 *
 * The app (`.router-app/`) protects `/admin/*` in `src/middleware.ts` with `signIn: true`, has
 * an open `/public`, a catch-all 404 page, and `/vault` whose query calls
 * `requireSession(authConfig, { signIn: true })`.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RouterApp, rawGet, startRouterApp } from "./router-app.js";

const SESSION_COOKIE = "authjs.session-token";
const PROTECTED = /PROTECTED-ADMIN/;

let app: RouterApp;

beforeAll(async () => {
  app = await startRouterApp();
}, 420_000);

afterAll(async () => {
  await app?.close();
});

/** `name=value` pairs of a response's cookies, for a Cookie header. */
function cookiePairs(setCookie: string[]): string[] {
  return setCookie.map((line) => line.slice(0, line.indexOf(";")));
}

/**
 * Signs in with the credentials provider as the built-in sign-in page's form does, with
 * `callbackUrl`; answers the session cookie and where the sign-in sent the browser.
 */
async function signIn(callbackUrl: string): Promise<{ cookie: string; location: string }> {
  const csrf = await fetch(`${app.origin}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${app.origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookiePairs(csrf.headers.getSetCookie()).join("; "),
    },
    body: new URLSearchParams({
      csrfToken,
      email: "ada@example.com",
      password: "analytical-engine",
      callbackUrl,
    }),
  });
  expect(response.status).toBe(302);
  const session = cookiePairs(response.headers.getSetCookie()).find((pair) =>
    pair.startsWith(`${SESSION_COOKIE}=`),
  );
  expect(session).toBeDefined();
  return { cookie: session!, location: response.headers.get("location") ?? "" };
}

/**
 * Spellings of a path under /admin, or leading there, that a server, a proxy or the router may
 * read differently: encoded slashes and backslashes in either case, encoded dots, `;`
 * parameters, doubled slashes, trailing dots, mixed case, double encoding, and leaving an
 * excluded prefix (the auth routes, the build output) by encoded dot segments.
 */
const SPELLINGS = [
  "/admin/x",
  "/admin",
  "/admin/",
  "/admin/..%2Fpublic",
  "/admin/..%2fpublic",
  "/admin/..%5Cpublic",
  "/admin/..%5cpublic",
  "/admin/a/..%2F..%2Fpublic",
  "/admin/%2E%2E%2Fpublic",
  "/admin/%2e%2e%2fpublic",
  "/admin/.%2E%2Fpublic",
  "/admin/%2E%2E%5Cpublic",
  "/admin/..%252Fpublic",
  "/admin/..%2F..%2Fapi%2Fauth%2Fsession",
  "/admin/..%2Fpublic.css",
  "/admin/..\\public",
  "/admin\\x",
  "/admin/..;/public",
  "/admin/..;x",
  "/admin;/x",
  "/admin/x;",
  "/admin/x;y=1",
  "//admin/x",
  "///admin/x",
  "/admin//x",
  "/admin/x/",
  "/admin/x.",
  "/admin/x..",
  "/admin./x",
  "/admin/.",
  "/admin/x/.",
  "/Admin/x",
  "/ADMIN/..%2Fpublic",
  "/%61dmin/x",
  "/%61dmin/..%2Fpublic",
  "/admin%2Fx",
  "/admin%2F..%2Fpublic",
  "/public/..%2Fadmin%2Fx",
  "/public/../admin/x",
  "/public/%2E%2E/admin/x",
  "/x/..%2F..%2Fadmin%2Fx",
  "/api/auth/..%2F..%2Fadmin%2Fx",
  "/api/auth/../../admin/x",
  "/_build/..%2Fadmin%2Fx",
  "/_server/..%2F..%2Fadmin",
  "/admin/x?next=..%2F..%2Fpublic",
  "/admin/x#frag",
];

/** Spellings from the report: the router renders each as `/admin/:id`. */
const ROUTED_TO_ADMIN = [
  "/admin/..%2Fpublic",
  "/admin/..%2fpublic",
  "/admin/..%5Cpublic",
  "/admin/%2E%2E%2Fpublic",
  "/admin/..%2F..%2Fapi%2Fauth%2Fsession",
];

describe("authMiddleware in a real SolidStart app", () => {
  test("the open page renders; a protected one sends the visitor to sign in", async () => {
    const open = await rawGet(app.origin, "/public");
    expect(open.status).toBe(200);
    expect(open.body).toContain("OPEN-PUBLIC-PAGE");
    const closed = await rawGet(app.origin, "/admin/x");
    expect(closed.status).toBe(302);
    expect(closed.location).toBe("/api/auth/signin?callbackUrl=%2Fadmin%2Fx");
    expect(closed.body).not.toMatch(PROTECTED);
  });

  test("the router renders the reported spellings as the protected page (with a session)", async () => {
    const { cookie } = await signIn("/");
    for (const path of ROUTED_TO_ADMIN) {
      const answer = await rawGet(app.origin, path, cookie);
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).toContain("PROTECTED-ADMIN-ITEM");
    }
  });

  test("signed out, no spelling renders the protected page", async () => {
    const leaks: string[] = [];
    for (const path of SPELLINGS) {
      const answer = await rawGet(app.origin, path);
      if (PROTECTED.test(answer.body)) leaks.push(`${path} → ${answer.status}`);
      expect(answer.status, path).toBeLessThan(500);
    }
    expect(leaks).toEqual([]);
  });

  test("signed out on a spelling the router renders as /admin/:id: redirected to sign in, back to that path", async () => {
    for (const path of ROUTED_TO_ADMIN) {
      const answer = await rawGet(app.origin, path);
      expect(answer.status, path).toBe(302);
      expect(answer.location, path).toBe(
        `/api/auth/signin?callbackUrl=${encodeURIComponent(path)}`,
      );
    }
  });

  test("the way back: sign-in page with callbackUrl, sign in, the page renders", async () => {
    const first = await rawGet(app.origin, "/admin/42?tab=keys");
    expect(first.status).toBe(302);
    const signInPage = await fetch(new URL(first.location ?? "", app.origin));
    expect(signInPage.status).toBe(200);
    // The page's form carries the way back (resolved against the site by the auth route).
    const form = await signInPage.text();
    const back = `${app.origin}/admin/42?tab=keys`;
    expect(form).toContain(`name="callbackUrl" value="${back}"`);
    const { cookie, location } = await signIn(back);
    expect(location).toBe(`${app.origin}/admin/42?tab=keys`);
    const page = await rawGet(
      app.origin,
      new URL(location).pathname + new URL(location).search,
      cookie,
    );
    expect(page.status).toBe(200);
    expect(page.body).toContain("PROTECTED-ADMIN-ITEM id=[<!--$-->42<!--/-->]");
  });
});

describe("requireSession with signIn in a real SolidStart app", () => {
  test("signed out: the server-rendered page redirects to sign in with the page as callbackUrl", async () => {
    const answer = await rawGet(app.origin, "/vault?x=1");
    expect(answer.status).toBe(302);
    expect(answer.location).toBe("/api/auth/signin?callbackUrl=%2Fvault%3Fx%3D1");
    expect(answer.body).not.toContain("Ada Lovelace");
  });

  test("signed in: the page renders with the user", async () => {
    const { cookie } = await signIn("/vault");
    const answer = await rawGet(app.origin, "/vault", cookie);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("Ada Lovelace");
  });
});
