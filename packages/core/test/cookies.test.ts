/**
 * Cookies on the wire: how `Auth()` reads a `Cookie` header (duplicates, quotes, percent-encoding,
 * chunks) and how it writes `Set-Cookie` (attributes, chunking, deletions), seen only through
 * requests and responses.
 */
import { Auth } from "@gatehousejs/core";
import { encode } from "@gatehousejs/core/jwt";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, it } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  recordingLogger,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

const SESSION = "authjs.session-token";
const CALLBACK = "authjs.callback-url";

const validToken = () =>
  encode({ token: { sub: alice.id, name: alice.name }, secret: SECRET, salt: SESSION });

/** GET /session with a raw `Cookie` header; the session's user name (or null) and the response. */
async function sessionWith(cookie: string, config: AuthConfig = credentialsConfig()) {
  const response = await Auth(
    new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }),
    config,
  );
  const body = (await response.json()) as { user?: { name?: string } } | null;
  return { name: body?.user?.name ?? null, response };
}

/** Splits `value` into `count` pieces of nearly equal length. */
function split(value: string, count: number): string[] {
  const size = Math.ceil(value.length / count);
  return Array.from({ length: count }, (_, i) => value.slice(i * size, (i + 1) * size));
}

describe("reading the Cookie header", () => {
  it("a name sent twice: the first occurrence wins, either way round", async () => {
    const token = await validToken();
    expect((await sessionWith(`${SESSION}=${token}; ${SESSION}=garbage`)).name).toBe(alice.name);
    expect((await sessionWith(`${SESSION}=garbage; ${SESSION}=${token}`)).name).toBeNull();
  });

  it("skips parts without a name or without '=' and reads the rest", async () => {
    const token = await validToken();
    for (const header of [
      `junk; ${SESSION}=${token}`,
      `=orphan; ${SESSION}=${token}`,
      `;;${SESSION}=${token};`,
    ]) {
      expect((await sessionWith(header)).name, header).toBe(alice.name);
    }
  });

  it("a part without '=' is skipped whole, even when it starts with a cookie's name", async () => {
    const token = await validToken();
    expect((await sessionWith(`${SESSION}x; ${SESSION}=${token}`)).name).toBe(alice.name);
  });

  it("spaces and tabs around a name are not part of it; inside a name they are", async () => {
    const token = await validToken();
    expect((await sessionWith(`a=1;  \t${SESSION} \t=${token}`)).name).toBe(alice.name);
    expect((await sessionWith(`a=1; authjs.session -token=${token}`)).name).toBeNull();
    expect((await sessionWith(`authjs.session\t-token=${token}`)).name).toBeNull();
  });

  it("spaces around a value are not part of it", async () => {
    const token = await validToken();
    expect((await sessionWith(`${SESSION}=  ${token}  ; other=1`)).name).toBe(alice.name);
  });

  it("a value of just two quotes is empty: no session, nothing cleared, nothing logged", async () => {
    const logger = recordingLogger();
    const { name, response } = await sessionWith(`${SESSION}=""`, credentialsConfig({ logger }));
    expect(name).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it("reads a double-quoted value without its quotes", async () => {
    const token = await validToken();
    expect((await sessionWith(`${SESSION}="${token}"`)).name).toBe(alice.name);
  });

  it("a value that is a single quote is that quote, not an empty value", async () => {
    const logger = recordingLogger();
    const { name, response } = await sessionWith(`${SESSION}="`, credentialsConfig({ logger }));
    expect(name).toBeNull();
    // Not empty: it was read, failed to decode, and is cleared.
    expect(setCookies(response).get(SESSION)?.raw).toMatch(/Max-Age=0/);
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it("keeps a lone quote as part of the value", async () => {
    const token = await validToken();
    expect((await sessionWith(`${SESSION}="${token}`)).name).toBeNull();
    expect((await sessionWith(`${SESSION}=${token}"`)).name).toBeNull();
  });

  it("percent-decodes values, and keeps a value with malformed escapes as sent", async () => {
    const config = credentialsConfig();
    for (const [cookie, followed] of [
      ["%2Fdashboard%3Ftab%3D1", `${ORIGIN}/dashboard?tab=1`],
      ["/plain", `${ORIGIN}/plain`],
      // Not decodable: kept raw, and raw it is still a same-origin path.
      ["/a%ZZb", `${ORIGIN}/a%ZZb`],
      // Only a value quoted at both ends loses its quotes.
      ['"/quoted"', `${ORIGIN}/quoted`],
      ['/dash"', `${ORIGIN}/dash%22`],
      // A leading quote alone stays: the value is then no path, so it is ignored.
      ['"/dash', ORIGIN],
    ] as const) {
      const jar = new Jar();
      const token = await csrfToken(config, jar);
      const response = await Auth(
        new Request(`${ORIGIN}/auth/callback/credentials`, {
          method: "POST",
          headers: {
            cookie: `${jar.header()}; ${CALLBACK}=${cookie}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({
            csrfToken: token,
            username: "alice",
            password: "wonderland",
          }),
        }),
        config,
      );
      expect(response.headers.get("location"), cookie).toBe(followed);
    }
  });

  describe("chunks", () => {
    it("reads up to 32 chunks, in order, and ignores anything past the 32nd", async () => {
      const token = await validToken();
      const chunks = (count: number) =>
        split(token, count)
          .map((piece, i) => `${SESSION}.${i}=${piece}`)
          .reverse()
          .join("; ");
      expect((await sessionWith(chunks(2))).name).toBe(alice.name);
      expect((await sessionWith(chunks(32))).name).toBe(alice.name);
      expect((await sessionWith(chunks(33))).name).toBeNull();
    });

    it("stops at the first missing chunk", async () => {
      const token = await validToken();
      const [a, b] = split(token, 2);
      expect((await sessionWith(`${SESSION}.0=${a}; ${SESSION}.1=${b}; ${SESSION}.3=x`)).name).toBe(
        alice.name,
      );
      expect((await sessionWith(`${SESSION}.0=${a}; ${SESSION}.2=${b}`)).name).toBeNull();
    });

    it("prefers chunks over an unchunked cookie of the same name", async () => {
      const token = await validToken();
      const [a, b] = split(token, 2);
      expect(
        (await sessionWith(`${SESSION}=${token}; ${SESSION}.0=${a}; ${SESSION}.1=${b}x`)).name,
      ).toBeNull();
      expect(
        (await sessionWith(`${SESSION}=garbage; ${SESSION}.0=${a}; ${SESSION}.1=${b}`)).name,
      ).toBe(alice.name);
    });

    it("an empty cookie is no session, and nothing is cleared", async () => {
      const { name, response } = await sessionWith(`${SESSION}=`);
      expect(name).toBeNull();
      expect(response.headers.getSetCookie()).toEqual([]);
    });
  });
});

describe("clearing a session leaves the app's own cookies alone", () => {
  const appCookies = [
    `${SESSION}.x1`,
    `${SESSION}.123`,
    `${SESSION}.1x`,
    `${SESSION}.1.bak`,
    `${SESSION}x.1`,
    `${SESSION}-app.1`,
    `app.${SESSION}.1`,
    `${SESSION}.`,
    "x.1",
    // As long as the session cookie's name, then a chunk suffix.
    `${"a".repeat(SESSION.length)}.1`,
  ];

  it("sign-out deletes the session cookie and its chunks, and only those", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const token = await csrfToken(config, jar);
    const [a, b] = split(await validToken(), 2);
    for (const name of appCookies) jar.cookies.set(name, "app");
    jar.cookies.set(SESSION, "stale");
    jar.cookies.set(`${SESSION}.0`, a!);
    jar.cookies.set(`${SESSION}.1`, b!);
    jar.cookies.set(`${SESSION}.12`, "stale");
    const response = await send(config, jar, "/auth/signout", { form: { csrfToken: token } });
    const deleted = [...setCookies(response)]
      .filter(([, { raw }]) => /Max-Age=0/.test(raw))
      .map(([name]) => name)
      .sort();
    expect(deleted).toEqual([SESSION, `${SESSION}.0`, `${SESSION}.1`, `${SESSION}.12`].sort());
    for (const name of appCookies) expect(jar.cookies.get(name), name).toBe("app");
  });

  it("an invalid session is cleared the same way", async () => {
    const { response } = await sessionWith(
      `${SESSION}.0=bad; ${SESSION}.1=worse; ${appCookies.map((n) => `${n}=app`).join("; ")}`,
    );
    expect([...setCookies(response).keys()].sort()).toEqual([`${SESSION}.0`, `${SESSION}.1`]);
  });
});

describe("writing Set-Cookie", () => {
  it("writes every attribute, in Auth.js's order, with the value percent-encoded", async () => {
    const config = credentialsConfig({
      cookies: {
        csrfToken: {
          options: {
            maxAge: 100.9,
            domain: "localhost",
            path: "/auth",
            expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
            secure: true,
            partitioned: true,
            priority: "high",
            sameSite: "strict",
          },
        },
      },
    });
    const response = await send(config, new Jar(), "/auth/csrf");
    const [raw] = response.headers.getSetCookie();
    const value = setCookies(response).get("authjs.csrf-token")!.value;
    expect(value).toMatch(/^[0-9a-f]{64}\|[0-9a-f]{64}$/);
    expect(raw).toBe(
      `authjs.csrf-token=${value.replace("|", "%7C")}; Max-Age=100; Domain=localhost; Path=/auth; ` +
        "Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; Secure; Partitioned; Priority=High; " +
        "SameSite=Strict",
    );
  });

  it("leaves out the attributes that are unset or false", async () => {
    const config = credentialsConfig({
      cookies: { csrfToken: { options: { httpOnly: false, sameSite: undefined, path: "" } } },
    });
    const response = await send(config, new Jar(), "/auth/csrf");
    const [raw] = response.headers.getSetCookie();
    expect(raw).toMatch(/^authjs\.csrf-token=[0-9a-f]{64}%7C[0-9a-f]{64}$/);
  });

  it("writes other priorities and SameSite values capitalised", async () => {
    for (const [priority, sameSite, expected] of [
      ["low", "none", "; Priority=Low; SameSite=None"],
      ["medium", "lax", "; Priority=Medium; SameSite=Lax"],
    ] as const) {
      const config = credentialsConfig({
        cookies: { csrfToken: { options: { priority, sameSite } } },
      });
      const [raw] = (await send(config, new Jar(), "/auth/csrf")).headers.getSetCookie();
      expect(raw!.endsWith(expected), raw).toBe(true);
    }
  });

  it("a deletion has an empty value and Max-Age=0, and no Expires", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const token = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/signout", { form: { csrfToken: token } });
    expect(setCookies(response).get(SESSION)!.raw).toBe(
      `${SESSION}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`,
    );
  });

  describe("chunking at 3936 characters", () => {
    /** A config whose session token is exactly `length` characters long. */
    const sized = (length: number) =>
      credentialsConfig({
        jwt: {
          encode: () => "t".repeat(length),
          decode: ({ token }) => (token?.startsWith("t") ? { name: `len ${token.length}` } : null),
        },
      });

    it("a token of exactly 3936 characters is one cookie", async () => {
      const jar = new Jar();
      await signInAlice(sized(3936), jar);
      expect([...jar.cookies.keys()].filter((n) => n.startsWith(SESSION))).toEqual([SESSION]);
      expect(jar.cookies.get(SESSION)).toHaveLength(3936);
    });

    it("one more character makes two chunks, full then the rest, that read back", async () => {
      const config = sized(3937);
      const jar = new Jar();
      await signInAlice(config, jar);
      expect([...jar.cookies.keys()].filter((n) => n.startsWith(SESSION))).toEqual([
        `${SESSION}.0`,
        `${SESSION}.1`,
      ]);
      expect(jar.cookies.get(`${SESSION}.0`)).toHaveLength(3936);
      expect(jar.cookies.get(`${SESSION}.1`)).toHaveLength(1);
      const session = await (await send(config, jar, "/auth/session")).json();
      expect(session.user.name).toBe("len 3937");
    });

    it("a token of exactly two chunks' length is two full chunks, no empty third", async () => {
      const response = await signInAlice(sized(2 * 3936), new Jar());
      const written = [...setCookies(response)].filter(([name]) => name.startsWith(SESSION));
      expect(written.map(([name]) => name)).toEqual([`${SESSION}.0`, `${SESSION}.1`]);
      for (const [, { value }] of written) expect(value).toHaveLength(3936);
    });

    it("growing into chunks deletes the unchunked cookie; shrinking deletes the chunks", async () => {
      const jar = new Jar();
      await signInAlice(sized(100), jar);
      expect(jar.cookies.has(SESSION)).toBe(true);
      const grown = await signInAlice(sized(3 * 3936 + 1), jar);
      expect(setCookies(grown).get(SESSION)!.raw).toMatch(/Max-Age=0/);
      expect([...jar.cookies.keys()].filter((n) => n.startsWith(SESSION))).toEqual([
        `${SESSION}.0`,
        `${SESSION}.1`,
        `${SESSION}.2`,
        `${SESSION}.3`,
      ]);
      const shrunk = await signInAlice(sized(10), jar);
      const written = setCookies(shrunk);
      for (const i of [0, 1, 2, 3])
        expect(written.get(`${SESSION}.${i}`)!.raw).toMatch(/Max-Age=0/);
      expect(written.get(SESSION)!.value).toBe("t".repeat(10));
      expect([...jar.cookies.keys()].filter((n) => n.startsWith(SESSION))).toEqual([SESSION]);
    });

    it("each chunk carries the session cookie's attributes and expiry", async () => {
      const jar = new Jar();
      const response = await signInAlice(sized(3937), jar);
      for (const name of [`${SESSION}.0`, `${SESSION}.1`]) {
        expect(setCookies(response).get(name)!.raw).toMatch(
          /; Path=\/; Expires=[^;]+ GMT; HttpOnly; SameSite=Lax$/,
        );
      }
    });
  });
});
