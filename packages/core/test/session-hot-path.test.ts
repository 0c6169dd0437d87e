import { Auth, getSession, revokeSession } from "@gatehousejs/core";
import { decode, encode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, JWT } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { parseCookies } from "../src/lib/cookies.js";
import { credentialsConfig, ORIGIN, SECRET } from "./helpers.js";
import { agents, Browser, COOKIE, sessionsConfig, users } from "./sessions-helpers.js";

// A session check with a valid cookie serves its claims from memory after the first read. These
// tests hold that memory to the rule that it changes nothing a caller can see.

afterEach(() => {
  vi.useRealTimers();
});

const claims = (extra: JWT = {}): JWT => ({
  sub: "user-1",
  name: "Alice",
  email: "a@x.io",
  picture: "p.png",
  roles: ["reader"],
  profile: { team: { name: "blue" } },
  ...extra,
});

function sessionRequest(cookie: string) {
  return new Request(`${ORIGIN}/auth/session`, { headers: { cookie } });
}

describe("remembered session claims", () => {
  test("a jwt callback's in-place change on one request never reaches the next", async () => {
    const seen: JWT[] = [];
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token }) => {
          seen.push(structuredClone(token));
          token.name = "Mallory";
          (token.roles as string[]).push("admin");
          (token.profile as { team: { name: string } }).team.name = "red";
          delete token.email;
          return token;
        },
      },
    });
    const cookie = `${COOKIE}=${await encode({ token: claims(), secret: SECRET, salt: COOKIE })}`;
    for (let i = 0; i < 3; i++) {
      const response = await Auth(sessionRequest(cookie), config);
      expect((await response.json()).user.name).toBe("Mallory");
      // The callback changed the token: re-issued every time, read from memory or not.
      expect(response.headers.getSetCookie()).toHaveLength(1);
    }
    expect(seen).toHaveLength(3);
    for (const token of seen) {
      expect(token).toMatchObject({
        name: "Alice",
        email: "a@x.io",
        roles: ["reader"],
        profile: { team: { name: "blue" } },
      });
    }
  });

  test("a session callback's change to its token and session never reaches the next request", async () => {
    const tokens: JWT[] = [];
    const config = credentialsConfig({
      callbacks: {
        session: ({ session, token }) => {
          if (!token) throw new Error("a JWT session's callback is given its token");
          tokens.push(structuredClone(token));
          (token.roles as string[]).push("admin");
          token.sub = "someone-else";
          session.user!.name = "Mallory";
          return session;
        },
      },
    });
    const cookie = `${COOKIE}=${await encode({ token: claims(), secret: SECRET, salt: COOKIE })}`;
    for (let i = 0; i < 3; i++) {
      const session = await getSession(sessionRequest(cookie), config);
      expect(session?.user?.name).toBe("Mallory");
    }
    expect(tokens).toHaveLength(3);
    for (const token of tokens) expect(token).toMatchObject({ sub: "user-1", roles: ["reader"] });
  });

  test("a callback that changes nothing re-issues nothing, first read or remembered", async () => {
    const config = credentialsConfig({ callbacks: { jwt: ({ token }) => token } });
    const cookie = `${COOKIE}=${await encode({ token: claims(), secret: SECRET, salt: COOKIE })}`;
    for (let i = 0; i < 3; i++) {
      const response = await Auth(sessionRequest(cookie), config);
      expect((await response.json()).user.email).toBe("a@x.io");
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  test("decode hands each caller its own deep copy, equal to the first read", async () => {
    const token = await encode({
      token: JSON.parse('{"sub":"1","nested":{"list":[1,{"a":2}]},"__proto__":{"admin":true}}'),
      secret: SECRET,
      salt: COOKIE,
    });
    const first = (await decode({ token, secret: SECRET, salt: COOKIE })) as JWT;
    const firstJson = JSON.stringify(first);
    (first.nested as { list: unknown[] }).list.push("x");
    first.sub = "2";
    const second = (await decode({ token, secret: SECRET, salt: COOKIE })) as JWT;
    const third = (await decode({ token, secret: SECRET, salt: COOKIE })) as JWT;
    expect(JSON.stringify(second)).toBe(firstJson);
    expect(second).not.toBe(third);
    expect(second.nested).not.toBe(third.nested);
    expect(Object.isFrozen(second)).toBe(false);
    // `__proto__` stays an own claim, as JSON.parse makes it, never the object's prototype.
    expect(Object.getPrototypeOf(second)).toBe(Object.prototype);
    expect(Object.hasOwn(second, "__proto__")).toBe(true);
    expect((second as { admin?: boolean }).admin).toBeUndefined();
  });

  test("an expired token is refused even though it was read (and remembered) before", async () => {
    const token = await encode({ token: claims(), secret: SECRET, salt: COOKIE, maxAge: 60 });
    const config = credentialsConfig();
    const cookie = `${COOKIE}=${token}`;
    for (let i = 0; i < 2; i++) {
      expect(await decode({ token, secret: SECRET, salt: COOKIE })).toMatchObject({
        sub: "user-1",
      });
      expect(await getSession(sessionRequest(cookie), config)).not.toBeNull();
    }
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 120_000 });
    await expect(decode({ token, secret: SECRET, salt: COOKIE })).rejects.toThrow(/expired/);
    const response = await Auth(sessionRequest(cookie), config);
    expect(await response.json()).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([
      expect.stringMatching(new RegExp(`^${COOKIE.replace(".", "\\.")}=; Max-Age=0`)),
    ]);
  });

  test("a token remembered under a secret that was rotated out is refused", async () => {
    const old = "old-secret-0123456789abcdef0123456789abcdef";
    const fresh = "new-secret-0123456789abcdef0123456789abcdef";
    const token = await encode({ token: claims(), secret: old, salt: COOKIE });
    const cookie = `${COOKIE}=${token}`;
    const rotating = credentialsConfig({ secret: [fresh, old] });
    for (let i = 0; i < 2; i++) {
      expect(await getSession(sessionRequest(cookie), rotating)).not.toBeNull();
    }
    expect(
      await getSession(sessionRequest(cookie), credentialsConfig({ secret: fresh })),
    ).toBeNull();
    await expect(decode({ token, secret: fresh, salt: COOKIE })).rejects.toThrow();
  });

  test("a tampered copy of a remembered token is refused", async () => {
    const token = await encode({ token: claims(), secret: SECRET, salt: COOKIE });
    await decode({ token, secret: SECRET, salt: COOKIE });
    const last = token.at(-1) === "A" ? "B" : "A";
    await expect(
      decode({ token: `${token.slice(0, -1)}${last}`, secret: SECRET, salt: COOKIE }),
    ).rejects.toThrow();
  });

  test("a chunked session cookie reads the same every time", async () => {
    const big = claims({ blob: "x".repeat(9000) });
    const token = await encode({ token: big, secret: SECRET, salt: COOKIE });
    const chunks: string[] = [];
    for (let i = 0; i * 3936 < token.length; i++) {
      chunks.push(`${COOKIE}.${i}=${token.slice(i * 3936, (i + 1) * 3936)}`);
    }
    expect(chunks.length).toBeGreaterThan(1);
    const config = credentialsConfig({ callbacks: { jwt: ({ token }) => token } });
    for (let i = 0; i < 2; i++) {
      const response = await Auth(sessionRequest(chunks.join("; ")), config);
      expect((await response.json()).user.email).toBe("a@x.io");
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    // A chunk missing: the remembered whole token is not found, and the rest does not decrypt.
    const response = await Auth(sessionRequest(chunks.slice(0, -1).join("; ")), config);
    expect(await response.json()).toBeNull();
  });

  test("a revoked session is refused though its token was read before", async () => {
    const store = MemoryRevocationStore();
    const config: AuthConfig = sessionsConfig({
      session: { strategy: "jwt", revocation: { store } },
    });
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    for (let i = 0; i < 2; i++) {
      expect(await alice.session()).toMatchObject({ user: { email: users.alice.email } });
    }
    const value = alice.cookies.get(COOKIE) ?? "";
    const { sid } = (await decode({ token: value, secret: SECRET, salt: COOKIE })) as JWT;
    expect(await revokeSession(config, users.alice.id, sid as string)).toBe(true);
    expect(await alice.session()).toBeNull();
  });
});

/** What parseCookies did before it read the header in one pass: the reference it must match. */
function splitParse(header: string | null): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  const trim = (text: string) => text.replace(/^[ \t]+/, "").replace(/[ \t]+$/, "");
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = trim(part.slice(0, eq));
    if (!name || name in out) continue;
    let value = trim(part.slice(eq + 1));
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1);
    }
    if (value.includes("%")) {
      try {
        value = decodeURIComponent(value);
      } catch {
        // kept raw
      }
    }
    out[name] = value;
  }
  return out;
}

describe("parseCookies in one pass", () => {
  test("reads every header as splitting it on ';' does", () => {
    const fixed = [
      "",
      ";",
      "a=1",
      "a=1;",
      ";a=1",
      "=1; a=2",
      "a; b=2",
      "a=1;b;c=3",
      "a=1; a=2",
      ' \ta = 1 \t; b= "q" ',
      'a="',
      'a=""; b="x',
      "a=%zz; b=%41",
      "a==b; =; ==; c=d=e",
      "x;y;z;w=1",
      `${COOKIE}.0=abc; ${COOKIE}.1=def; other=1`,
    ];
    for (const header of fixed) expect(parseCookies(header), header).toEqual(splitParse(header));
    const alphabet = ["a", "b", "=", ";", " ", "\t", '"', "%", "4", "1", "é"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 5000; n++) {
      let header = "";
      const length = next() % 24;
      for (let i = 0; i < length; i++) header += alphabet[next() % alphabet.length];
      expect(parseCookies(header), JSON.stringify(header)).toEqual(splitParse(header));
    }
  });

  test("a header of many parts without '=' is read in one pass", () => {
    const header = `${";".repeat(200_000)}a=1`;
    expect(parseCookies(header)).toEqual(splitParse(header));
  });
});
