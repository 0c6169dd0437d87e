/**
 * The breached-password range check (features/password/breach.ts) against a local server that
 * speaks Have I Been Pwned's range protocol (node:http on 127.0.0.1): padded answers with CRLF
 * lines, a request log that shows only the 5-character prefix leaves, with `Add-Padding: true`,
 * and the failures (no answer, a status other than 200, a malformed or huge answer, no server)
 * with `onError` both ways, alone and through the password policy.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type BreachCheck,
  breachCount,
  PWNED_PASSWORDS_ENDPOINT,
  type PwnedPasswordsRangeOptions,
  pwnedPasswordsRange,
  sha1Hex,
} from "../src/lib/features/password/breach.js";
import { checkPassword, resolvePasswordPolicy } from "../src/lib/features/password/policy.js";

/** Uppercase SHA-1 hex, computed with node:crypto (not the module under test). */
function sha1(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex").toUpperCase();
}

/** A suffix made up for padding and decoys: 35 hex characters that no test password has. */
function decoy(n: number): string {
  return sha1(`decoy ${n}`).slice(0, 35);
}

const BREACHED = "correct horse battery staple"; // seen 7 times below
const PADDED_ONLY = "a padded-only passphrase here"; // listed with count 0, as padding
const CLEAN = "quiet maple river at dawn";

interface Logged {
  url: string;
  headers: IncomingMessage["headers"];
}

type Reply = (prefix: string, res: ServerResponse) => void;

/** The range answer for a prefix: decoys, padding, and the listed passwords, CRLF-separated. */
function rangeAnswer(prefix: string, listed: Record<string, number>, eol = "\r\n"): string {
  const lines = [`${decoy(1)}:3`, `${decoy(2)}:0`, `${decoy(3)}:12`];
  for (const [password, count] of Object.entries(listed)) {
    const hash = sha1(password);
    if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:${count}`);
  }
  lines.push(`${decoy(4)}:0`, `${decoy(5)}:0`);
  return lines.join(eol);
}

const speaksTheProtocol: Reply = (prefix, res) => {
  res.writeHead(200, { "content-type": "text/plain" });
  res.end(rangeAnswer(prefix, { [BREACHED]: 7, [PADDED_ONLY]: 0 }));
};

let server: Server;
let base: string;
const log: Logged[] = [];
/** What each path under /<name>/range/ does. */
const replies: Record<string, Reply> = {
  hibp: speaksTheProtocol,
  lf: (prefix, res) => {
    res.writeHead(200).end(`${rangeAnswer(prefix, { [BREACHED]: 7 }, "\n")}\n`);
  },
  silent: () => {
    // Never answers: the check's timeout must end it.
  },
  slowbody: (_, res) => {
    res.writeHead(200);
    res.write(`${decoy(1)}:3\r\n`); // and never ends
  },
  unavailable: (_, res) => {
    res.writeHead(503).end("Service Unavailable");
  },
  notfound: (_, res) => {
    res.writeHead(404).end();
  },
  malformed: (_, res) => {
    res.writeHead(200).end("<html>rate limited</html>");
  },
  huge: (_, res) => {
    res.writeHead(200);
    const chunk = `${decoy(1)}:0\r\n`.repeat(2000);
    for (let i = 0; i < 20; i++) res.write(chunk); // about 1.5 MiB
    res.end();
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    log.push({ url: req.url ?? "", headers: req.headers });
    const match = /^\/(\w+)\/range\/([^/?#]*)$/.exec(req.url ?? "");
    const reply = match ? replies[match[1] ?? ""] : undefined;
    if (!match || !reply || req.method !== "GET") {
      res.writeHead(400).end();
      return;
    }
    reply(match[2] ?? "", res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function endpoint(name: string): string {
  return `${base}/${name}/range/`;
}

/** Runs a check and collects what it reports. */
async function run(check: BreachCheck, password: string) {
  const reports: Error[] = [];
  const breached = await check(password, { unavailable: (reason) => reports.push(reason) });
  return { breached, reports: reports.map(String) };
}

/** A check against one of the server's paths; a generous timeout unless a test sets its own. */
function range(name: string, options: PwnedPasswordsRangeOptions = {}): BreachCheck {
  return pwnedPasswordsRange({ endpoint: endpoint(name), timeoutMs: 10_000, ...options });
}

describe("the range protocol, against a local server", () => {
  test("a breached password is found, and only the 5-character prefix and Add-Padding leave", async () => {
    log.length = 0;
    expect(await run(range("hibp"), BREACHED)).toEqual({ breached: true, reports: [] });
    const hash = sha1(BREACHED);
    expect(log).toHaveLength(1);
    const [request] = log;
    expect(request?.url).toBe(`/hibp/range/${hash.slice(0, 5)}`);
    expect(request?.url).toMatch(/^\/hibp\/range\/[0-9A-F]{5}$/);
    expect(request?.headers["add-padding"]).toBe("true");
    const sent = JSON.stringify(request);
    expect(sent).not.toContain(hash.slice(5, 12));
    expect(sent.toLowerCase()).not.toContain(hash.slice(5, 12).toLowerCase());
    expect(sent).not.toContain("horse");
  });

  test("a password the answer does not list is not breached", async () => {
    expect(await run(range("hibp"), CLEAN)).toEqual({ breached: false, reports: [] });
  });

  test("a padding entry (count 0) is not a breach, even for the password's own suffix", async () => {
    expect(await run(range("hibp"), PADDED_ONLY)).toEqual({ breached: false, reports: [] });
  });

  test("LF-separated answers with a final newline are read too", async () => {
    expect(await run(range("lf"), BREACHED)).toEqual({ breached: true, reports: [] });
    expect(await run(range("lf"), CLEAN)).toEqual({ breached: false, reports: [] });
  });

  test("minCount: seen 7 times is breached from minCount 7, not from 8", async () => {
    expect((await run(range("hibp", { minCount: 7 }), BREACHED)).breached).toBe(true);
    expect((await run(range("hibp", { minCount: 8 }), BREACHED)).breached).toBe(false);
  });

  test("the password is hashed in its NFKC form", async () => {
    log.length = 0;
    const typed = "ｃｏｒｒｅｃｔ ｈｏｒｓｅ ｂａｔｔｅｒｙ ｓｔａｐｌｅ";
    expect((await run(range("hibp"), typed)).breached).toBe(true);
    expect(log[0]?.url).toBe(`/hibp/range/${sha1(BREACHED).slice(0, 5)}`);
  });

  test("a custom fetch sends the request", async () => {
    const urls: string[] = [];
    const check = range("hibp", {
      fetch: (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    });
    expect((await run(check, BREACHED)).breached).toBe(true);
    expect(urls).toEqual([`${endpoint("hibp")}${sha1(BREACHED).slice(0, 5)}`]);
  });
});

describe("when the range endpoint gives no usable answer", () => {
  // Only the silent ones get a short timeout: a loaded machine must not turn a 503 into a timeout.
  const cases: [string, string, number, RegExp][] = [
    ["it never answers", "silent", 150, /did not answer within 150 ms/],
    ["its answer never ends", "slowbody", 150, /did not answer within 150 ms/],
    ["it answers 503", "unavailable", 10_000, /answered 503/],
    ["it answers 404", "notfound", 10_000, /answered 404/],
    ["its answer is not range lines", "malformed", 10_000, /malformed/],
    ["its answer is over 1 MiB", "huge", 10_000, /larger than 1 MiB/],
  ];

  test.each(cases)("%s: allowed by default, and reported", async (_, name, timeoutMs, reason) => {
    const { breached, reports } = await run(range(name, { timeoutMs }), BREACHED);
    expect(breached).toBe(false);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(reason);
    expect(reports[0]).toMatch(/the password was accepted without it$/);
  });

  test.each(cases)(
    "%s: refused with onError: refuse, and reported",
    async (_, name, timeoutMs, reason) => {
      const { breached, reports } = await run(range(name, { timeoutMs, onError: "refuse" }), CLEAN);
      expect(breached).toBe(true);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatch(reason);
      expect(reports[0]).toMatch(/the password was refused$/);
    },
  );

  test("no server listens on the port", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const check = pwnedPasswordsRange({ endpoint: `http://127.0.0.1:${port}/range/` });
    const { breached, reports } = await run(check, BREACHED);
    expect(breached).toBe(false);
    expect(reports).toEqual([
      "BreachCheckUnavailable: The breached-password check could not answer: the range request " +
        "failed (TypeError); the password was accepted without it",
    ]);
  });

  test("a fetch that ignores its signal still times out", async () => {
    const check = range("hibp", { timeoutMs: 100, fetch: () => new Promise<Response>(() => {}) });
    expect((await run(check, BREACHED)).reports[0]).toMatch(/did not answer within 100 ms/);
  });

  test("a report never holds the password, its hash or the prefix, even from a fetch's error", async () => {
    const hash = sha1(BREACHED);
    const check = range("hibp", {
      fetch: async (input) => {
        throw new Error(`could not reach ${String(input)} for ${BREACHED}`);
      },
    });
    const { reports } = await run(check, BREACHED);
    expect(reports).toHaveLength(1);
    for (const secret of [BREACHED, hash, hash.slice(0, 5), hash.slice(5)]) {
      expect(reports[0]).not.toContain(secret);
    }
  });

  test("without a report to tell, the check still answers", async () => {
    expect(await range("unavailable")(BREACHED)).toBe(false);
    expect(await range("unavailable", { onError: "refuse" })(BREACHED)).toBe(true);
  });
});

describe("through the password policy", () => {
  const TOO_COMMON = {
    ok: false,
    error: "PasswordTooCommon",
    message:
      "Choose a less common password: this one appears in lists of passwords attackers try first.",
  };

  function logged() {
    const lines: string[] = [];
    return {
      lines,
      logger: { warn: (code: string, detail?: Error) => lines.push(`${code} ${detail}`) },
    };
  }

  test("a breached password is refused as a common one is; a clean one is accepted", async () => {
    const policy = resolvePasswordPolicy({ breachCheck: range("hibp") });
    expect(await checkPassword(BREACHED, policy)).toEqual(TOO_COMMON);
    expect(await checkPassword("passwordpassword", policy)).toEqual(TOO_COMMON);
    expect(await checkPassword(CLEAN, policy)).toEqual({ ok: true, password: CLEAN });
  });

  test("an outage: accepted with one warning line naming no secret", async () => {
    const { lines, logger } = logged();
    const policy = resolvePasswordPolicy({ breachCheck: range("silent", { timeoutMs: 100 }) });
    expect(await checkPassword(BREACHED, policy, { logger })).toEqual({
      ok: true,
      password: BREACHED,
    });
    expect(lines).toEqual([
      "password-breach-check-unavailable BreachCheckUnavailable: The breached-password check " +
        "could not answer: the range endpoint did not answer within 100 ms; the password was " +
        "accepted without it",
    ]);
    const hash = sha1(BREACHED);
    for (const secret of [BREACHED, hash.slice(0, 5), hash.slice(5)]) {
      expect(lines[0]).not.toContain(secret);
    }
  });

  test("an outage with onError: refuse: refused as too common, with the warning", async () => {
    const { lines, logger } = logged();
    const check = range("unavailable", { onError: "refuse" });
    const policy = resolvePasswordPolicy({ breachCheck: check });
    expect(await checkPassword(CLEAN, policy, { logger })).toEqual(TOO_COMMON);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/answered 503; the password was refused$/);
  });
});

describe("the pure parts", () => {
  test("sha1Hex is uppercase SHA-1 of the UTF-8 text", async () => {
    expect(await sha1Hex("password")).toBe("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8");
    expect(await sha1Hex("naïve ☕ 🔑")).toBe(sha1("naïve ☕ 🔑"));
  });

  test("breachCount reads counts, skips padding, and refuses what is not range lines", () => {
    const suffix = sha1(BREACHED).slice(5);
    expect(breachCount(`${decoy(1)}:2\r\n${suffix}:42\r\n${decoy(2)}:0`, suffix)).toBe(42);
    expect(breachCount(`${suffix.toLowerCase()}:42\n`, suffix)).toBe(42);
    expect(breachCount(`${suffix}:0\r\n${decoy(1)}:5`, suffix)).toBe(0);
    expect(breachCount("", suffix)).toBe(0);
    expect(breachCount(`${suffix}:42\r\nnot a line`, suffix)).toBeNull();
    expect(breachCount(`${suffix}42`, suffix)).toBeNull();
    expect(breachCount(`${suffix.slice(1)}:42`, suffix)).toBeNull();
    expect(breachCount(`${suffix}:-1`, suffix)).toBeNull();
  });
});

describe("pwnedPasswordsRange refuses malformed options, naming them", () => {
  test("the default endpoint is Have I Been Pwned's", () => {
    expect(PWNED_PASSWORDS_ENDPOINT).toBe("https://api.pwnedpasswords.com/range/");
    expect(() => pwnedPasswordsRange()).not.toThrow();
  });

  test.each<[string, unknown]>([
    ["endpoint", "http://api.pwnedpasswords.com/range/"],
    ["endpoint", "https://api.pwnedpasswords.com/range"],
    ["endpoint", "https://api.pwnedpasswords.com/range/?mode=ntlm"],
    ["endpoint", "https://api.pwnedpasswords.com/range/#"],
    ["endpoint", "ftp://127.0.0.1/range/"],
    ["endpoint", "not a url/"],
    ["endpoint", 42],
    ["fetch", "https://example.com"],
    ["timeoutMs", 0],
    ["timeoutMs", -5],
    ["timeoutMs", Number.POSITIVE_INFINITY],
    ["timeoutMs", "2000"],
    ["minCount", 0],
    ["minCount", 1.5],
    ["onError", "block"],
    ["endPoint", "https://api.pwnedpasswords.com/range/"],
  ])("%s: %s", (option, value) => {
    const make = () => pwnedPasswordsRange({ [option]: value } as PwnedPasswordsRangeOptions);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(new RegExp(`\`${option}\``));
  });

  test("http: is allowed on loopback hosts only", () => {
    for (const host of ["127.0.0.1:8080", "localhost", "[::1]:3000"]) {
      expect(() => pwnedPasswordsRange({ endpoint: `http://${host}/range/` })).not.toThrow();
    }
  });
});

describe("the package's entry", () => {
  test("@gatehousejs/core/providers/password exports the range check the policy takes", async () => {
    const entry = await import("@gatehousejs/core/providers/password");
    expect(entry.pwnedPasswordsRange).toBe(pwnedPasswordsRange);
  });
});
