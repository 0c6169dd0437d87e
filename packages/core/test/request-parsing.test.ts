/**
 * Request parsing as `Auth()` does it: bodies that arrive in pieces, the 64 KiB limit to the byte,
 * UTF-8 that is not, duplicated query parameters, paths and methods.
 */
import { Auth } from "@gatehousejs/core";
import { describe, expect, it } from "vitest";
import { credentialsConfig, csrfToken, Jar, ORIGIN, setCookies } from "./helpers.js";

const LIMIT = 64 * 1024;
const SESSION = "authjs.session-token";
const te = new TextEncoder();

/** A body stream that hands out `chunks` one by one. */
function stream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

/** Splits bytes at the given offsets. */
function cut(bytes: Uint8Array, ...at: number[]): Uint8Array[] {
  const bounds = [0, ...at, bytes.byteLength];
  return bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
}

/** A credentials sign-in whose form body is `body` (streamed as given), with a valid CSRF pair. */
async function signInWithBody(
  body: (csrf: string) => BodyInit,
  headers: Record<string, string> = {},
) {
  const config = credentialsConfig();
  const jar = new Jar();
  const csrf = await csrfToken(config, jar);
  const response = await Auth(
    new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: {
        cookie: jar.header(),
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body: body(csrf),
      duplex: "half",
    } as RequestInit),
    config,
  );
  return {
    status: response.status,
    location: response.headers.get("location"),
    signedIn: setCookies(response).has(SESSION),
    json: () => response.clone().json() as Promise<{ error?: string }>,
  };
}

/** The form fields of alice's sign-in, padded with a `pad` field to exactly `size` bytes. */
function formOfSize(csrf: string, size: number, callbackUrl = "/done"): Uint8Array {
  const base = `csrfToken=${csrf}&username=alice&password=wonderland&callbackUrl=${encodeURIComponent(callbackUrl)}&pad=`;
  return te.encode(base + "x".repeat(size - te.encode(base).byteLength));
}

describe("a body streamed in several chunks", () => {
  it("is put back together in order, even with a character split across chunks", async () => {
    const result = await signInWithBody((csrf) => {
      const bytes = te.encode(
        `csrfToken=${csrf}&username=alice&password=wonderland&callbackUrl=/café/日本`,
      );
      const e = bytes.byteLength - te.encode("é/日本").byteLength;
      // Cut inside "é" (2 bytes) and inside "日" (3 bytes), and into one-byte pieces at the start.
      return stream(cut(bytes, 1, 2, 3, 30, e + 1, e + 4, e + 5));
    });
    expect(result.signedIn).toBe(true);
    expect(result.location).toBe(`${ORIGIN}/caf%C3%A9/%E6%97%A5%E6%9C%AC`);
  });

  it("with empty chunks among them", async () => {
    const result = await signInWithBody((csrf) => {
      const bytes = te.encode(`csrfToken=${csrf}&username=alice&password=wonderland`);
      const [a, b] = cut(bytes, 40);
      return stream([new Uint8Array(0), a!, new Uint8Array(0), b!, new Uint8Array(0)]);
    });
    expect(result.signedIn).toBe(true);
  });
});

describe("the 64 KiB body limit", () => {
  it("a body of exactly 65536 bytes is read, streamed or declared", async () => {
    for (const declared of [false, true]) {
      const result = await signInWithBody(
        (csrf) => {
          const bytes = formOfSize(csrf, LIMIT);
          return stream(cut(bytes, 1000, 40_000));
        },
        declared ? { "content-length": String(LIMIT) } : {},
      );
      expect(result.status, `declared: ${declared}`).toBe(302);
      expect(result.signedIn).toBe(true);
      expect(result.location).toBe(`${ORIGIN}/done`);
    }
  });

  it("one byte more is 413 PayloadTooLarge, however it arrives", async () => {
    for (const pieces of [[], [LIMIT], [40_000], [1000, 40_000, 65_000]]) {
      const result = await signInWithBody((csrf) =>
        stream(cut(formOfSize(csrf, LIMIT + 1), ...pieces)),
      );
      expect(result.status, `cut at ${pieces}`).toBe(413);
      expect((await result.json()).error).toBe("PayloadTooLarge");
      expect(result.signedIn).toBe(false);
    }
  });

  it("a declared Content-Length past the limit is refused before reading", async () => {
    let pulled = 0;
    const result = await signInWithBody(
      () =>
        new ReadableStream({
          pull(controller) {
            pulled++;
            controller.enqueue(te.encode("a=b"));
            controller.close();
          },
        }),
      { "content-length": String(LIMIT + 1) },
    );
    expect(result.status).toBe(413);
    expect(await result.json()).toEqual({
      error: "PayloadTooLarge",
      message: "The request body is too large",
    });
    // At most the stream's first, eager pull: nothing was waited on.
    expect(pulled).toBeLessThanOrEqual(1);
  });
});

describe("a body that is not valid UTF-8", () => {
  it.each([
    ["a lone continuation byte", [0x80]],
    ["a truncated sequence at the end", [0xe6, 0x97]],
    ["an overlong encoding", [0xc0, 0xaf]],
    ["a surrogate", [0xed, 0xa0, 0x80]],
    ["0xff", [0xff]],
  ])("%s: 400 BadRequest, no sign-in", async (_, bad) => {
    const result = await signInWithBody((csrf) => {
      const head = te.encode(`csrfToken=${csrf}&username=alice&password=wonderland&x=`);
      const bytes = new Uint8Array(head.byteLength + bad.length);
      bytes.set(head);
      bytes.set(bad, head.byteLength);
      return bytes;
    });
    expect(result.status).toBe(400);
    expect((await result.json()).error).toBe("BadRequest");
    expect(result.signedIn).toBe(false);
  });

  it("as JSON too", async () => {
    const config = credentialsConfig();
    const response = await Auth(
      new Request(`${ORIGIN}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      }),
      config,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("BadRequest");
  });
});

describe("the query string", () => {
  it("a duplicated parameter: the first value counts", async () => {
    const config = credentialsConfig();
    const first = await Auth(
      new Request(`${ORIGIN}/auth/error?error=AccessDenied&error=Configuration`),
      config,
    );
    expect(first.status).toBe(403);
    const swapped = await Auth(
      new Request(`${ORIGIN}/auth/error?error=Configuration&error=AccessDenied`),
      config,
    );
    expect(swapped.status).toBe(500);
  });

  it("a duplicated callbackUrl: the first is followed, the second never looked at", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await Auth(
      new Request(
        `${ORIGIN}/auth/callback/credentials?callbackUrl=%2Ffirst&callbackUrl=https%3A%2F%2Fevil.example`,
        {
          method: "POST",
          headers: {
            cookie: jar.header(),
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({ csrfToken: csrf, username: "alice", password: "wonderland" }),
        },
      ),
      config,
    );
    expect(response.headers.get("location")).toBe(`${ORIGIN}/first`);
  });

  it("a parameter named like an Object.prototype member is just a parameter", async () => {
    const response = await Auth(
      new Request(`${ORIGIN}/auth/error?toString=1&__proto__=x&error=AccessDenied`),
      credentialsConfig(),
    );
    expect(response.status).toBe(403);
  });
});

/** `Auth()`'s answer to a bare request, as status, Allow and the JSON body of a rejection. */
async function answer(path: string, init: RequestInit = {}) {
  const response = await Auth(new Request(`${ORIGIN}${path}`, init), credentialsConfig());
  const text = await response.text();
  let body: { error?: string; message?: string } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return {
    status: response.status,
    allow: response.headers.get("allow"),
    location: response.headers.get("location"),
    body,
  };
}

describe("paths", () => {
  it("a request whose URL is not absolute (a careless server adapter's): 400 BadRequest", async () => {
    class Relative extends Request {
      override get url() {
        return "/auth/session";
      }
    }
    const response = await Auth(new Relative(`${ORIGIN}/auth/session`), credentialsConfig());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "BadRequest",
      message: "The request URL is not valid",
    });
  });

  it.each([
    "/auth/csrf/x",
    "/auth/providers/x",
    "/auth/session/x",
    "/auth/signout/x",
    "/auth/verify-request/x",
    "/auth/error/x",
    "/auth/callback",
    "/auth/webauthn-options",
    "/auth/signin/credentials/extra",
    "/auth/nope",
  ])("%s: 400 UnknownAction", async (path) => {
    const a = await answer(path);
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ error: "UnknownAction", message: "No action matches this path" });
  });

  it("a segment with malformed percent-encoding: 400 BadRequest", async () => {
    const a = await answer("/auth/signin/%E0%A4");
    expect(a.status).toBe(400);
    expect(a.body).toEqual({
      error: "BadRequest",
      message: "The path has invalid percent-encoding",
    });
  });

  it("a percent-encoded provider id is decoded", async () => {
    const a = await answer("/auth/signin/%63redentials", { method: "POST" });
    // Reached the credentials provider's sign-in (which then wants its CSRF token).
    expect(a.status).toBe(302);
    expect(a.location).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
  });
});

describe("methods", () => {
  it.each([
    ["POST", "/auth/verify-request", "GET"],
    ["POST", "/auth/error", "GET"],
    ["POST", "/auth/csrf", "GET"],
    ["POST", "/auth/providers", "GET"],
    ["POST", "/auth/webauthn-options/passkey", "GET"],
    ["GET", "/auth/signin/credentials", "POST"],
    ["PUT", "/auth/session", "GET, POST"],
    ["DELETE", "/auth/signout", "GET, POST"],
    // Method names that are substrings of the Allow value are still other methods.
    ["ET", "/auth/session", "GET, POST"],
    ["OS", "/auth/signout", "GET, POST"],
    ["POS", "/auth/callback/credentials", "GET, POST"],
  ])("%s %s: 405 with Allow: %s", async (method, path, allow) => {
    const a = await answer(path, { method });
    expect(a.status).toBe(405);
    expect(a.allow).toBe(allow);
    expect(a.body).toEqual({
      error: "MethodNotAllowed",
      message: `${path.split("/")[2]} does not accept ${method}`,
    });
  });

  it("a GET never has its body judged: a body header of any size is ignored", async () => {
    const a = await answer("/auth/providers", {
      headers: { "content-type": "application/json", "content-length": String(10 * LIMIT) },
    });
    expect(a.status).toBe(200);
    expect(a.body).toHaveProperty("credentials");
  });

  it("a lower-case method is the same method", async () => {
    expect((await answer("/auth/providers", { method: "get" })).status).toBe(200);
  });
});

describe("POST bodies that are empty or absent", () => {
  const signOut = (init: RequestInit) => answer("/auth/signout", { method: "POST", ...init });
  // A refused sign-out goes back to the sign-out page, which says its form expired.
  const missingCsrf = `${ORIGIN}/auth/signout?error=MissingCSRF`;

  it.each([
    ["form, no body", { headers: { "content-type": "application/x-www-form-urlencoded" } }],
    [
      "form, empty body",
      { headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" },
    ],
    ["JSON, no body", { headers: { "content-type": "application/json" } }],
    ["JSON, empty body", { headers: { "content-type": "application/json" }, body: "" }],
    ["no content type, no body", {}],
    ["another content type", { headers: { "content-type": "text/plain" }, body: "csrfToken=x" }],
  ])("%s: read as no fields (MissingCSRF), never a 400 or 500", async (_, init) => {
    const a = await signOut(init as RequestInit);
    expect(a.status).toBe(302);
    expect(a.location).toBe(missingCsrf);
  });

  it.each([
    ["not JSON", "{", "The request body is not valid JSON"],
    ["a JSON array", "[]", "The request body must be a JSON object"],
    ["JSON null", "null", "The request body must be a JSON object"],
    ["a JSON string", '"x"', "The request body must be a JSON object"],
  ])("%s: 400 BadRequest", async (_, body, message) => {
    const a = await signOut({ headers: { "content-type": "application/json" }, body });
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ error: "BadRequest", message });
  });

  it("413 and invalid UTF-8 say what was wrong", async () => {
    const big = await signOut({
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "x".repeat(LIMIT + 1),
    });
    expect(big.body).toEqual({
      error: "PayloadTooLarge",
      message: "The request body is too large",
    });
    const streamed = await signOut({
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: stream([new Uint8Array(LIMIT), new Uint8Array(1)]),
      duplex: "half",
    } as RequestInit);
    expect(streamed.body).toEqual(big.body);
    const bad = await signOut({
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new Uint8Array([0x61, 0x3d, 0xc3]),
    });
    expect(bad.body).toEqual({
      error: "BadRequest",
      message: "The request body is not valid UTF-8",
    });
  });
});

describe("the request a provider callback receives", () => {
  it("sendVerificationRequest gets the sign-in POST with its body still readable", async () => {
    const { MemoryAdapter } = await import("@gatehousejs/core/adapters/memory");
    const { default: Email } = await import("@gatehousejs/core/providers/email");
    const seen: { method: string; path: string; body: string }[] = [];
    const config = credentialsConfig({
      adapter: MemoryAdapter(),
      providers: [
        Email({
          sendVerificationRequest: async ({ request }) => {
            seen.push({
              method: request.method,
              path: new URL(request.url).pathname,
              body: await request.text(),
            });
          },
        }),
      ],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await Auth(
      new Request(`${ORIGIN}/auth/signin/email`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: jar.header(),
        },
        body: new URLSearchParams({ csrfToken: csrf, email: "reader@example.com" }),
      }),
      config,
    );
    expect(response.status).toBe(302);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", path: "/auth/signin/email" });
    expect(new URLSearchParams(seen[0]!.body).get("email")).toBe("reader@example.com");
  });

  it("authorize gets a JSON callback's body, readable", async () => {
    const { default: Credentials } = await import("@gatehousejs/core/providers/credentials");
    const bodies: string[] = [];
    const config = credentialsConfig({
      providers: [
        Credentials({
          credentials: { pin: {} },
          authorize: async (_credentials, request) => {
            bodies.push(await request.text());
            return null;
          },
        }),
      ],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    await Auth(
      new Request(`${ORIGIN}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: jar.header() },
        body: JSON.stringify({ csrfToken: csrf, pin: "1234" }),
      }),
      config,
    );
    expect(bodies).toHaveLength(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ pin: "1234" });
  });
});
