/**
 * Bad input, case by case: every malformed, oversized or hostile request gets a 4xx, the error
 * page or a redirect to it, one log line, and never a 500 or a Location off the site. No log line
 * and no response body carries the secret, the password, the CSRF token or the session cookie.
 */
import { randomBytes } from "node:crypto";
import { Auth } from "@gatehousejs/core";
import { CredentialsSignin } from "@gatehousejs/core/errors";
import { encode } from "@gatehousejs/core/jwt";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  credentialsConfig,
  csrfToken,
  HOSTILE_CALLBACK_URLS,
  Jar,
  ORIGIN,
  recordingLogger,
  SECRET,
  setCookies,
  signInAlice,
} from "./helpers.js";

const PASSWORD = "wonderland";
const SESSION = "authjs.session-token";
const CSRF_COOKIE = "authjs.csrf-token";
const CALLBACK_COOKIE = "authjs.callback-url";
const ERROR_PAGE = `${ORIGIN}/auth/error`;
const SIGNIN_PAGE = `${ORIGIN}/auth/signin`;
/** Where a POST refused for its CSRF token goes: a sign-out to its own page, the rest to sign-in. */
const refusedCsrf = (path: string) =>
  path === "/auth/signout"
    ? `${ORIGIN}/auth/signout?error=MissingCSRF`
    : `${SIGNIN_PAGE}?error=MissingCSRF`;

interface Answer {
  response: Response;
  status: number;
  body: string;
  location: string | null;
  json: () => unknown;
}

interface SendInit {
  method?: string;
  form?: Record<string, string>;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Raw text appended to the jar's `Cookie` header, sent as is. */
  cookie?: string;
}

let current: Case | undefined;

/**
 * One test's world: a config with a recording logger, a cookie jar, and the sensitive values
 * sent so far, which `afterEach` looks for in every log line and response body.
 */
class Case {
  readonly logger = recordingLogger();
  readonly jar = new Jar();
  readonly config: AuthConfig;
  readonly needles = new Set<string>([SECRET, PASSWORD]);
  readonly seen: string[] = [];
  /** Set by the few cases whose server-side fault rightly ends on the Configuration page. */
  configurationExpected = false;

  constructor(overrides: Partial<AuthConfig> = {}) {
    this.config = credentialsConfig({ logger: this.logger, ...overrides });
    current = this;
  }

  /** A value that must never be logged or echoed. Short values would match by accident. */
  secret(value: string): string {
    if (value.length >= 16) this.needles.add(value);
    return value;
  }

  /** Fetches a CSRF token into the jar; the setup request does not count as a log line. */
  async csrf(): Promise<string> {
    const token = this.secret(await csrfToken(this.config, this.jar));
    this.clearLogs();
    return token;
  }

  /** Signs alice in; the setup requests do not count as log lines. */
  async signIn(): Promise<string> {
    await signInAlice(this.config, this.jar);
    this.clearLogs();
    return this.secret(this.jar.cookies.get(SESSION)!);
  }

  async send(path: string, init: SendInit = {}): Promise<Answer> {
    const headers = new Headers(init.headers);
    const cookie = [this.jar.header(), init.cookie ?? ""].filter((c) => c !== "").join("; ");
    if (cookie !== "") headers.set("cookie", cookie);
    let body = init.body;
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const method = init.method ?? (body === undefined ? "GET" : "POST");
    return this.fetch(
      new Request(`${ORIGIN}${path}`, { method, headers, body, duplex: "half" } as RequestInit),
    );
  }

  async fetch(request: Request): Promise<Answer> {
    // A handler that never settles (a hung body read, say) fails here, not at the test timeout.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("Auth() did not settle within 5 s")), 5000);
    });
    const response = this.jar.take(
      await Promise.race([Auth(request, this.config), stuck]).finally(() => clearTimeout(timer)),
    );
    const body = await response.text();
    const location = response.headers.get("location");
    this.seen.push(body, location ?? "");
    expect(response.status).toBeLessThan(500);
    if (location !== null) expect(new URL(location, ORIGIN).origin).toBe(ORIGIN);
    if (!this.configurationExpected) {
      // A client's bad input is never the server's configuration problem.
      expect(location ?? "", "redirected to the Configuration page").not.toContain(
        "error=Configuration",
      );
      expect(body, "answered with the Configuration page").not.toContain("error=Configuration");
    }
    return { response, status: response.status, body, location, json: () => JSON.parse(body) };
  }

  clearLogs(): void {
    this.logger.error.mockClear();
    this.logger.warn.mockClear();
  }

  /**
   * Every failure logged so far, as `[error]`: server faults (`error`) and client mistakes
   * (`warn("client-error", error)`) alike. Each failure must be exactly one of these lines.
   */
  get errors(): [Error][] {
    const mistakes = this.logger.warn.mock.calls
      .filter(([code]) => code === "client-error")
      .map(([, detail]) => [detail as Error] as [Error]);
    return [...this.logger.error.mock.calls, ...mistakes];
  }

  /** Client mistakes logged at `warn`, by type. */
  mistakeTypes(): unknown[] {
    return this.logger.warn.mock.calls
      .filter(([code]) => code === "client-error")
      .map(([, e]) => (e as { type?: unknown }).type ?? e?.name);
  }

  /** The error types logged so far. */
  errorTypes(): unknown[] {
    return this.errors.map(([e]) => (e as { type?: unknown }).type ?? e.name);
  }

  logText(): string {
    const calls = this.errors.map(([e]) => {
      const err = e as (Error & { cause?: { message?: unknown } }) | undefined;
      return [String(err), err?.message, err?.cause?.message];
    });
    const other = [...this.logger.warn.mock.calls, ...this.logger.debug.mock.calls];
    return (
      JSON.stringify(calls) + JSON.stringify(other, (_k, v) => (v instanceof Error ? String(v) : v))
    );
  }
}

afterEach(() => {
  const c = current;
  current = undefined;
  if (!c) return;
  const logs = c.logText();
  for (const needle of c.needles) {
    expect(logs, "a log line carries a sensitive value").not.toContain(needle);
    for (const seen of c.seen) {
      expect(seen, "a response carries a sensitive value").not.toContain(needle);
    }
  }
});

/** `Set-Cookie` deletions in a response (`Max-Age=0`), by name. */
function deleted(response: Response): string[] {
  return [...setCookies(response)].filter(([, c]) => /Max-Age=0/.test(c.raw)).map(([n]) => n);
}

describe("unknown paths answer 400 UnknownAction", () => {
  it.each([
    ["GET", "/auth/nope"],
    ["POST", "/auth/nope"],
    ["GET", "/auth/session/extra"],
    ["GET", "/authsession"],
    ["GET", "/auth"],
    ["GET", "/auth/"],
    ["GET", "/auth/providers/credentials"],
    ["GET", "/auth/callback"],
    ["POST", "/auth/callback/credentials/extra"],
    ["GET", "/auth/callback/undefined"],
    ["GET", "/auth/webauthn-options"],
    ["GET", "/auth/toString"],
    ["GET", "/auth/__proto__"],
  ])("%s %s", async (method, path) => {
    const c = new Case();
    const a = await c.send(path, { method });
    expect(a.status).toBe(400);
    expect(a.response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(a.json()).toMatchObject({ error: "UnknownAction" });
    expect(c.errors).toHaveLength(1);
  });

  it.each(["/", "/api/auth/session", "/other/session", "/session", "/auth-x/session"])(
    "a path outside basePath (%s) is refused",
    async (path) => {
      const c = new Case();
      const a = await c.send(path);
      expect(a.status).toBe(400);
      expect(a.json()).toMatchObject({ error: "UnknownAction" });
      expect(c.errors).toHaveLength(1);
    },
  );

  it("with a custom basePath, the default /auth paths are outside it", async () => {
    const c = new Case({ basePath: "/api/auth" });
    const outside = await c.send("/auth/session");
    expect(outside.status).toBe(400);
    expect(outside.json()).toMatchObject({ error: "UnknownAction" });
    const inside = await c.send("/api/auth/session");
    expect(inside.status).toBe(200);
    expect(inside.json()).toBeNull();
    expect(c.errors).toHaveLength(1);
  });
});

describe("a known action with the wrong method answers 405 with Allow", () => {
  it.each([
    ["PUT", "/auth/session", "GET, POST"],
    ["DELETE", "/auth/signout", "GET, POST"],
    ["POST", "/auth/providers", "GET"],
    ["POST", "/auth/csrf", "GET"],
    ["PATCH", "/auth/error", "GET"],
    ["OPTIONS", "/auth/signin", "GET, POST"],
    ["HEAD", "/auth/session", "GET, POST"],
    ["GET", "/auth/signin/credentials", "POST"],
    ["GET", "/auth/callback/credentials", "POST"],
  ])("%s %s", async (method, path, allow) => {
    const c = new Case();
    const a = await c.send(path, { method });
    expect(a.status).toBe(405);
    expect(a.response.headers.get("allow")).toBe(allow);
    if (method !== "HEAD") expect(a.json()).toMatchObject({ error: "MethodNotAllowed" });
    expect(c.errors).toHaveLength(1);
  });
});

describe("invalid percent-encoding in the path answers 400 BadRequest", () => {
  it.each([
    "/auth/callback/%E0%A4%A",
    "/auth/%E0%A4%A",
    "/auth/signin/%ZZ",
    "/auth/session%",
    "/auth/callback/%C0%AF",
  ])("%s", async (path) => {
    const c = new Case();
    const a = await c.send(path, { method: "POST" });
    expect(a.status).toBe(400);
    expect(a.json()).toMatchObject({ error: "BadRequest" });
    expect(c.errors).toHaveLength(1);
  });
});

function b64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

const dirHeader = b64url(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512" }));

describe("a malformed session cookie gives no session, is cleared, and is logged once", () => {
  async function expectCleared(c: Case, cookie: string, names: string[] = [SESSION]) {
    const a = await c.send("/auth/session", { cookie });
    expect(a.status).toBe(200);
    expect(a.json()).toBeNull();
    expect(deleted(a.response).sort()).toEqual([...names].sort());
    expect(c.errors).toHaveLength(1);
    expect(c.errorTypes()).toEqual(["JWTSessionError"]);
  }

  it("garbage", async () => {
    const c = new Case();
    await expectCleared(c, `${SESSION}=${c.secret("garbage-garbage-garbage-garbage")}`);
  });

  it("a 3 KB random cookie", async () => {
    const c = new Case();
    await expectCleared(c, `${SESSION}=${c.secret(randomBytes(2304).toString("base64url"))}`);
  });

  it.each(["abc%E0%A4%A-def-0123456789", "%", "%zz%zz%zz%zz%zz%zz", "eyJ%hello.world"])(
    "invalid percent-encoding (%s)",
    async (value) => {
      const c = new Case();
      await expectCleared(c, `${SESSION}=${c.secret(value)}`);
    },
  );

  it("40 chunk cookies", async () => {
    const c = new Case();
    const names = Array.from({ length: 40 }, (_, i) => `${SESSION}.${i}`);
    const chunk = c.secret(randomBytes(60).toString("base64url"));
    await expectCleared(c, names.map((n) => `${n}=${chunk}`).join("; "), names);
  });

  it("a valid JWE for another secret", async () => {
    const c = new Case();
    const other = await encode({
      token: { sub: "mallory", name: "Mallory" },
      secret: "another-secret-with-plenty-of-entropy-000",
      salt: SESSION,
    });
    await expectCleared(c, `${SESSION}=${c.secret(other)}`);
  });

  it("a valid JWE for the right secret but another cookie name (salt)", async () => {
    const c = new Case();
    const other = await encode({ token: { sub: "mallory" }, secret: SECRET, salt: "other-salt" });
    await expectCleared(c, `${SESSION}=${c.secret(other)}`);
  });

  it("a valid session with one character of its tag changed", async () => {
    const c = new Case();
    const session = await c.signIn();
    // Not the last character: its low bits are base64 padding, and changing only them changes
    // no byte of the tag.
    const at = session.length - 5;
    const flipped =
      session.slice(0, at) + (session[at] === "A" ? "B" : "A") + session.slice(at + 1);
    c.jar.cookies.delete(SESSION);
    await expectCleared(c, `${SESSION}=${c.secret(flipped)}`);
  });

  it("a valid session cut in half", async () => {
    const c = new Case();
    const session = await c.signIn();
    c.jar.cookies.delete(SESSION);
    await expectCleared(c, `${SESSION}=${c.secret(session.slice(0, session.length >> 1))}`);
  });
});

describe("JWE garbage in many shapes gives 200 null", () => {
  const huge = b64url(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", x: "h".repeat(2500) }));
  it.each([
    ["five dots", "a.b.c.d.e.f"],
    ["only dots", "....."],
    ["four empty parts", "...."],
    ["base64 junk", "eyJhbGciOiJkaXIi!!!.@@@.###.$$$.^^^"],
    ["a valid header, junk parts", `${dirHeader}..AAAA.BBBB.CCCC`],
    ["a valid header, empty parts", `${dirHeader}....`],
    ["a bad IV length", `${dirHeader}..${b64url("iv")}.${b64url("ct")}.${b64url("tag")}`],
    ["alg none", `${b64url('{"alg":"none","enc":"A256CBC-HS512"}')}..AAAA.BBBB.CCCC`],
    ["zip header", `${b64url('{"alg":"dir","enc":"A256CBC-HS512","zip":"DEF"}')}..AA.BB.CC`],
    ["A256GCM junk", `${b64url('{"alg":"dir","enc":"A256GCM"}')}..AAAAAAAAAAAAAAAA.BB.CC`],
    ["a header that is not JSON", `${b64url("not json")}..AA.BB.CC`],
    ["a JSON array header", `${b64url("[]")}..AA.BB.CC`],
    ["a JSON null header", `${b64url("null")}..AA.BB.CC`],
    [
      "a kid that matches nothing",
      `${b64url('{"alg":"dir","enc":"A256CBC-HS512","kid":"x"}')}..AA.BB.CC`,
    ],
    ["a huge header", `${huge}..AAAA.BBBB.CCCC`],
    ["JSON", '{"sub":"alice"}'],
    ["the literal null", "null"],
    ["unicode", "%F0%9F%98%80.%F0%9F%98%80.%F0%9F%98%80.%F0%9F%98%80.%F0%9F%98%80"],
  ])("%s", async (_name, value) => {
    const c = new Case();
    c.secret(value);
    const a = await c.send("/auth/session", { cookie: `${SESSION}=${value}` });
    expect(a.status).toBe(200);
    expect(a.json()).toBeNull();
    expect(deleted(a.response)).toEqual([SESSION]);
    expect(c.errors).toHaveLength(1);
    expect(c.errorTypes()).toEqual(["JWTSessionError"]);
  });
});

describe("bodies", () => {
  it("non-JSON with content-type application/json on POST /session answers 400", async () => {
    const c = new Case();
    const token = await c.csrf();
    const a = await c.send("/auth/session", {
      body: `{"csrfToken":"${token}", not json`,
      headers: { "content-type": "application/json" },
    });
    expect(a.status).toBe(400);
    expect(a.json()).toMatchObject({ error: "BadRequest" });
    expect(c.errors).toHaveLength(1);
  });

  it.each(["[1,2,3]", '"a string"', "null", "42", "true"])(
    "a JSON body that is not an object (%s) answers 400",
    async (body) => {
      const c = new Case();
      await c.csrf();
      const a = await c.send("/auth/session", {
        body,
        headers: { "content-type": "application/json" },
      });
      expect(a.status).toBe(400);
      expect(a.json()).toMatchObject({ error: "BadRequest" });
      expect(c.errors).toHaveLength(1);
    },
  );

  it("a body that is not UTF-8 answers 400", async () => {
    const c = new Case();
    const a = await c.send("/auth/callback/credentials", {
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      headers: { "content-type": "application/json" },
    });
    expect(a.status).toBe(400);
    expect(a.json()).toMatchObject({ error: "BadRequest" });
    expect(c.errors).toHaveLength(1);
  });

  const big = () =>
    JSON.stringify({ csrfToken: "x", password: PASSWORD, data: "x".repeat(64 * 1024) });

  it.each(["/auth/session", "/auth/callback/credentials", "/auth/signout"])(
    "over 64 KiB with an accurate Content-Length answers 413 (%s)",
    async (path) => {
      const c = new Case();
      const body = big();
      const a = await c.send(path, {
        body,
        headers: { "content-type": "application/json", "content-length": String(body.length) },
      });
      expect(a.status).toBe(413);
      expect(a.json()).toMatchObject({ error: "PayloadTooLarge" });
      expect(c.errors).toHaveLength(1);
    },
  );

  it.each(["application/json", "application/x-www-form-urlencoded"])(
    "over 64 KiB streamed without Content-Length answers 413 (%s)",
    async (type) => {
      const c = new Case();
      const chunk = new TextEncoder().encode("a".repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const a = await c.send("/auth/callback/credentials", {
        body: stream,
        headers: { "content-type": type },
      });
      expect(a.status).toBe(413);
      expect(a.json()).toMatchObject({ error: "PayloadTooLarge" });
      expect(c.errors).toHaveLength(1);
    },
  );

  it.each(["/auth/session", "/auth/callback/credentials"])(
    "over 64 KiB with no Content-Length answers 413 (%s)",
    async (path) => {
      const c = new Case();
      const a = await c.send(path, {
        body: big(),
        headers: { "content-type": "application/json" },
      });
      expect(a.status).toBe(413);
      expect(a.json()).toMatchObject({ error: "PayloadTooLarge" });
      expect(c.errors).toHaveLength(1);
    },
  );

  it("a Content-Length that understates the body does not let it through", async () => {
    const c = new Case();
    const body = big();
    const a = await c.send("/auth/session", {
      body,
      headers: { "content-type": "application/json", "content-length": "10" },
    });
    expect(a.status).toBe(413);
    expect(c.errors).toHaveLength(1);
  });

  function multipart(fields: Record<string, string>): { body: string; type: string } {
    const boundary = "----gatehouse-boundary";
    const body = Object.entries(fields)
      .map(
        ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
      )
      .join("");
    return {
      body: `${body}--${boundary}--\r\n`,
      type: `multipart/form-data; boundary=${boundary}`,
    };
  }

  it.each([
    ["/auth/signout", {}],
    ["/auth/signin/credentials", {}],
    ["/auth/callback/credentials", { username: "alice", password: PASSWORD }],
  ])("a multipart body on POST %s is treated as no body: MissingCSRF", async (path, extra) => {
    const c = new Case();
    const token = await c.csrf();
    const { body, type } = multipart({ csrfToken: token, ...extra });
    const a = await c.send(path, { body, headers: { "content-type": type } });
    expect(a.status).toBe(302);
    expect(a.location).toBe(refusedCsrf(path));
    expect(setCookies(a.response).has(SESSION)).toBe(false);
    expect(c.errors).toHaveLength(1);
  });

  it("a multipart body on POST /session answers 400 null", async () => {
    const c = new Case();
    const token = await c.csrf();
    const { body, type } = multipart({ csrfToken: token });
    const a = await c.send("/auth/session", { body, headers: { "content-type": type } });
    expect(a.status).toBe(400);
    expect(a.json()).toBeNull();
    expect(c.errors).toHaveLength(1);
  });
});

describe("an unknown provider is the client's mistake, never the Configuration page", () => {
  it.each([
    ["POST", "/auth/callback/nope"],
    ["GET", "/auth/callback/nope"],
    ["POST", "/auth/callback/__proto__"],
    ["GET", "/auth/callback/toString"],
    ["GET", "/auth/webauthn-options/nope"],
    ["GET", "/auth/webauthn-options/credentials"],
    ["GET", "/auth/callback/a%20b"],
    ["GET", "/auth/callback/..%2F..%2Fsession"],
  ])("%s %s answers 400 InvalidProvider, logged once below error level", async (method, path) => {
    const c = new Case();
    const token = await c.csrf();
    const a = await c.send(path, {
      method,
      ...(method === "POST" ? { form: { csrfToken: token } } : {}),
    });
    expect(a.status).toBe(400);
    expect(a.json()).toMatchObject({ error: "InvalidProvider" });
    expect(c.errors).toHaveLength(1);
    expect(c.logger.error).not.toHaveBeenCalled();
    expect(c.mistakeTypes()).toEqual(["InvalidProvider"]);
  });

  it.each([["/auth/signin/nope"], ["/auth/signin/toString"]])(
    "POST %s goes back to the sign-in page, as with Auth.js",
    async (path) => {
      const c = new Case();
      const token = await c.csrf();
      const a = await c.send(path, { method: "POST", form: { csrfToken: token } });
      expect(a.status).toBe(302);
      expect(a.location).toBe(`${ORIGIN}/auth/signin`);
      expect(c.logger.error).not.toHaveBeenCalled();
      expect(c.mistakeTypes()).toEqual(["UnknownAction"]);
    },
  );
});

const HOSTILE_CALLBACKS = HOSTILE_CALLBACK_URLS;

describe("callbackUrl pointing off the site is refused with InvalidCallbackUrl", () => {
  const invalid = `${ERROR_PAGE}?error=InvalidCallbackUrl`;

  async function expectRefused(c: Case, a: Answer) {
    expect(a.status).toBe(302);
    expect(a.location).toBe(invalid);
    expect(c.errors).toHaveLength(1);
    expect(c.errorTypes()).toEqual(["InvalidCallbackUrl"]);
    const page = await c.send(new URL(a.location!).pathname + new URL(a.location!).search);
    expect(page.status).toBe(400);
    expect(page.response.headers.get("content-type")).toMatch(/^text\/html/);
  }

  describe.each(HOSTILE_CALLBACKS)("%j", (callbackUrl) => {
    it("in the body of POST /signin/credentials", async () => {
      const c = new Case();
      const csrfToken = await c.csrf();
      const a = await c.send("/auth/signin/credentials", { form: { csrfToken, callbackUrl } });
      await expectRefused(c, a);
    });

    it("in the body of POST /signin", async () => {
      const c = new Case();
      const csrfToken = await c.csrf();
      const a = await c.send("/auth/signin", { form: { csrfToken, callbackUrl } });
      await expectRefused(c, a);
    });

    it("in the query of GET /signin", async () => {
      const c = new Case();
      const a = await c.send(`/auth/signin?${new URLSearchParams({ callbackUrl })}`);
      await expectRefused(c, a);
    });

    it("in the body of the credentials callback, with valid credentials: nobody is signed in", async () => {
      const c = new Case();
      const csrfToken = await c.csrf();
      const a = await c.send("/auth/callback/credentials", {
        form: { csrfToken, callbackUrl, username: "alice", password: PASSWORD },
      });
      expect(setCookies(a.response).has(SESSION)).toBe(false);
      await expectRefused(c, a);
    });

    it("in the query of the credentials callback", async () => {
      const c = new Case();
      const csrfToken = await c.csrf();
      const a = await c.send(`/auth/callback/credentials?${new URLSearchParams({ callbackUrl })}`, {
        form: { csrfToken, username: "alice", password: PASSWORD },
      });
      expect(setCookies(a.response).has(SESSION)).toBe(false);
      await expectRefused(c, a);
    });

    it("in the body of POST /signout", async () => {
      const c = new Case();
      await c.signIn();
      const csrfToken = await c.csrf();
      const a = await c.send("/auth/signout", { form: { csrfToken, callbackUrl } });
      await expectRefused(c, a);
    });
  });

  it("an encoded double slash (/%2F%2Fevil.example) is refused", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      form: {
        csrfToken,
        callbackUrl: "/%2F%2Fevil.example",
        username: "alice",
        password: PASSWORD,
      },
    });
    await expectRefused(c, a);
  });

  it("a non-string callbackUrl in a JSON body is refused", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      json: {
        csrfToken,
        callbackUrl: { href: "https://evil.example" },
        username: "alice",
        password: PASSWORD,
      },
    });
    await expectRefused(c, a);
  });

  it("a refused callbackUrl on POST /signout still ends the session", async () => {
    const signOut = vi.fn();
    const c = new Case({ events: { signOut } });
    await c.signIn();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/signout", {
      form: { csrfToken, callbackUrl: "https://evil.example" },
    });
    expect(a.location).toBe(`${ERROR_PAGE}?error=InvalidCallbackUrl`);
    expect(deleted(a.response)).toContain(SESSION);
    expect(signOut).toHaveBeenCalledOnce();
    const after = await c.send("/auth/session");
    expect(after.json()).toBeNull();
  });

  it("a refused callbackUrl on the credentials callback fires no signIn event", async () => {
    const signIn = vi.fn();
    const c = new Case({ events: { signIn } });
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      form: {
        csrfToken,
        callbackUrl: "https://evil.example",
        username: "alice",
        password: PASSWORD,
      },
    });
    await expectRefused(c, a);
    expect(signIn).not.toHaveBeenCalled();
  });
});

describe("same-origin callbackUrls are accepted", () => {
  it.each([
    ["/dashboard", `${ORIGIN}/dashboard`],
    ["http://localhost:3000/x", `${ORIGIN}/x`],
    ["/a?b=c#d", `${ORIGIN}/a?b=c#d`],
  ])("%s after credentials sign-in", async (callbackUrl, expected) => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      form: { csrfToken, callbackUrl, username: "alice", password: PASSWORD },
    });
    expect(a.status).toBe(302);
    expect(a.location).toBe(expected);
    expect(setCookies(a.response).has(SESSION)).toBe(true);
    expect(c.errors).toHaveLength(0);
  });

  it("after sign-out", async () => {
    const c = new Case();
    await c.signIn();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/signout", { form: { csrfToken, callbackUrl: "/bye" } });
    expect(a.status).toBe(302);
    expect(a.location).toBe(`${ORIGIN}/bye`);
    expect(deleted(a.response)).toContain(SESSION);
    expect(c.errors).toHaveLength(0);
  });

  it("on POST /signin/credentials it is kept for the sign-in page (callback-url cookie)", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/signin/credentials", {
      form: { csrfToken, callbackUrl: "/dashboard" },
    });
    expect(a.status).toBe(302);
    expect(a.location).toBe(SIGNIN_PAGE);
    expect(c.jar.cookies.get(CALLBACK_COOKIE)).toBe(`${ORIGIN}/dashboard`);
    expect(c.errors).toHaveLength(0);
  });
});

describe("a hostile callback-url cookie is ignored, not fatal", () => {
  it.each(HOSTILE_CALLBACKS.filter((u) => !/[\t\n]/.test(u)))("%j", async (hostile) => {
    const c = new Case();
    c.jar.cookies.set(CALLBACK_COOKIE, hostile);
    const a = await signInAlice(c.config, c.jar);
    expect(a.status).toBe(302);
    expect(new URL(a.headers.get("location")!).origin).toBe(ORIGIN);
    expect(a.headers.get("location")).toMatch(/^http:\/\/localhost:3000\/?$/);
    expect(setCookies(a).has(SESSION)).toBe(true);
    expect(c.errorTypes()).toEqual(["InvalidCallbackUrl"]);
    c.secret(c.jar.cookies.get(SESSION)!);

    c.clearLogs();
    c.jar.cookies.set(CALLBACK_COOKIE, hostile);
    const page = await c.send("/auth/signin");
    expect(page.status).toBe(200);
    expect(c.errorTypes()).toEqual(["InvalidCallbackUrl"]);
  });
});

describe("credentials failures", () => {
  function withAuthorize(authorize: (c: Record<string, unknown>) => unknown): Case {
    return new Case({
      providers: [
        Credentials({
          credentials: { username: {}, password: { type: "password" } },
          authorize: authorize as never,
        }),
      ],
    });
  }

  async function attempt(c: Case): Promise<Answer> {
    const csrfToken = await c.csrf();
    return c.send("/auth/callback/credentials", {
      form: { csrfToken, username: "alice", password: PASSWORD },
    });
  }

  it("authorize throwing a plain Error goes to the error page with Configuration", async () => {
    const c = withAuthorize(() => {
      throw new Error("database unreachable");
    });
    c.configurationExpected = true;
    const a = await attempt(c);
    expect(a.status).toBe(302);
    expect(a.location).toBe(`${ERROR_PAGE}?error=Configuration`);
    expect(setCookies(a.response).has(SESSION)).toBe(false);
    expect(c.errors).toHaveLength(1);
  });

  it("authorize rejecting goes to the error page with Configuration", async () => {
    const c = withAuthorize(() => Promise.reject(new TypeError("boom")));
    c.configurationExpected = true;
    const a = await attempt(c);
    expect(a.location).toBe(`${ERROR_PAGE}?error=Configuration`);
    expect(c.errors).toHaveLength(1);
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a string", "yes"],
    ["false", false],
  ])("authorize returning %s goes back to sign-in with CredentialsSignin", async (_n, value) => {
    const c = withAuthorize(() => value);
    const a = await attempt(c);
    expect(a.status).toBe(302);
    expect(a.location).toBe(`${SIGNIN_PAGE}?error=CredentialsSignin&code=credentials`);
    expect(setCookies(a.response).has(SESSION)).toBe(false);
    expect(c.errors).toHaveLength(1);
    expect(c.errorTypes()).toEqual(["CredentialsSignin"]);
  });

  it("a CredentialsSignin subclass carries its code", async () => {
    class Locked extends CredentialsSignin {
      override code = "locked";
    }
    const c = withAuthorize(() => {
      throw new Locked();
    });
    const a = await attempt(c);
    expect(a.location).toBe(`${SIGNIN_PAGE}?error=CredentialsSignin&code=locked`);
    expect(c.errors).toHaveLength(1);
  });

  it("wrong credentials through the default provider never log the password", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      json: { csrfToken, username: "alice", password: `${PASSWORD}-but-wrong-0123456789` },
    });
    c.secret(`${PASSWORD}-but-wrong-0123456789`);
    expect(a.location).toBe(`${SIGNIN_PAGE}?error=CredentialsSignin&code=credentials`);
    expect(c.errors).toHaveLength(1);
  });

  it("non-string credentials in a JSON body are just wrong credentials", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      json: { csrfToken, username: ["alice"], password: { toString: PASSWORD } },
    });
    expect(a.location).toBe(`${SIGNIN_PAGE}?error=CredentialsSignin&code=credentials`);
    expect(c.errors).toHaveLength(1);
  });
});

describe("missing or wrong CSRF", () => {
  const missing = `${SIGNIN_PAGE}?error=MissingCSRF`;

  it.each([
    ["/auth/signin/credentials", {}],
    ["/auth/signin", {}],
    ["/auth/signout", {}],
    ["/auth/callback/credentials", { username: "alice", password: PASSWORD }],
  ])("no token on POST %s", async (path, extra) => {
    const c = new Case();
    await c.csrf();
    const a = await c.send(path, { form: { ...extra } });
    expect(a.status).toBe(302);
    expect(a.location).toBe(refusedCsrf(path));
    expect(setCookies(a.response).has(SESSION)).toBe(false);
    expect(c.errors).toHaveLength(1);
    expect(c.errorTypes()).toEqual(["MissingCSRF"]);
  });

  it("a token that does not match the cookie", async () => {
    const c = new Case();
    await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      form: { csrfToken: "0".repeat(64), username: "alice", password: PASSWORD },
    });
    expect(a.location).toBe(missing);
    expect(c.errors).toHaveLength(1);
  });

  it("a token with no cookie", async () => {
    const c = new Case();
    const token = await c.csrf();
    c.jar.cookies.clear();
    const a = await c.send("/auth/signout", { form: { csrfToken: token } });
    expect(a.location).toBe(refusedCsrf("/auth/signout"));
    expect(c.errors).toHaveLength(1);
  });

  it("a forged CSRF cookie (wrong hash)", async () => {
    const c = new Case();
    const token = "a".repeat(64);
    c.jar.cookies.set(CSRF_COOKIE, `${token}|${"b".repeat(64)}`);
    const a = await c.send("/auth/signout", { form: { csrfToken: token } });
    expect(a.location).toBe(refusedCsrf("/auth/signout"));
    expect(c.errors).toHaveLength(1);
  });

  it("no token on POST /session answers 400 null", async () => {
    const c = new Case();
    await c.signIn();
    await c.csrf();
    const a = await c.send("/auth/session", { json: { data: { name: "Mallory" } } });
    expect(a.status).toBe(400);
    expect(a.json()).toBeNull();
    expect(setCookies(a.response).has(SESSION)).toBe(false);
    expect(c.errors).toHaveLength(1);
  });
});

describe("a logger that throws turns nothing into a 500", () => {
  const throwing = {
    error: () => {
      throw new Error("logger down");
    },
    warn: () => {
      throw new Error("logger down");
    },
    debug: () => {
      throw new Error("logger down");
    },
  };

  it.each([
    ["unknown path", "/auth/nope", {}, 400],
    ["wrong method", "/auth/providers", { method: "POST" }, 405],
    ["bad percent-encoding", "/auth/%E0%A4%A", {}, 400],
    ["garbage session cookie", "/auth/session", { cookie: `${SESSION}=garbage` }, 200],
    ["missing CSRF", "/auth/signout", { form: {} }, 302],
    [
      "non-JSON body",
      "/auth/session",
      { body: "{", headers: { "content-type": "application/json" } },
      400,
    ],
    ["hostile callbackUrl", "/auth/signin?callbackUrl=https://evil.example", {}, 302],
    [
      "hostile callback cookie",
      "/auth/signin",
      { cookie: `${CALLBACK_COOKIE}=//evil.example` },
      200,
    ],
  ] as const)("%s", async (_name, path, init, status) => {
    const c = new Case({ logger: throwing, debug: true });
    const a = await c.send(path, init as SendInit);
    expect(a.status).toBe(status);
  });

  it("wrong credentials and an unknown provider", async () => {
    const c = new Case({ logger: throwing });
    const token = await csrfToken(c.config, c.jar);
    const wrong = await c.send("/auth/callback/credentials", {
      form: { csrfToken: token, username: "alice", password: "nope" },
    });
    expect(wrong.location).toBe(`${SIGNIN_PAGE}?error=CredentialsSignin&code=credentials`);
    const unknown = await c.send("/auth/signin/nope", { form: { csrfToken: token } });
    expect(unknown.location).toBe(SIGNIN_PAGE);
  });
});

describe("X-Auth-Return-Redirect on an error path answers 200 {url}", () => {
  const headers = { "X-Auth-Return-Redirect": "1" };

  it("wrong credentials", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      headers,
      form: { csrfToken, username: "alice", password: "nope" },
    });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ url: `${SIGNIN_PAGE}?error=CredentialsSignin&code=credentials` });
    expect(c.errors).toHaveLength(1);
  });

  it("missing CSRF", async () => {
    const c = new Case();
    const a = await c.send("/auth/signout", { headers, form: {} });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ url: refusedCsrf("/auth/signout") });
    expect(c.errors).toHaveLength(1);
  });

  it("a hostile callbackUrl", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/callback/credentials", {
      headers,
      form: { csrfToken, callbackUrl: "//evil.example", username: "alice", password: PASSWORD },
    });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ url: `${ERROR_PAGE}?error=InvalidCallbackUrl` });
    expect(c.errors).toHaveLength(1);
  });

  it("an unknown provider", async () => {
    const c = new Case();
    const csrfToken = await c.csrf();
    const a = await c.send("/auth/signin/nope", { headers, form: { csrfToken } });
    expect(a.status).toBe(200);
    expect(a.json()).toEqual({ url: SIGNIN_PAGE });
    expect(c.errors).toHaveLength(1);
  });
});
