import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { describeClient, truncateIp } from "../src/lib/session/client.js";
import { isSessionId, newSessionId, publicSessionId } from "../src/lib/session/ids.js";

describe("describeClient", () => {
  test.each([
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      "Chrome 131 on macOS",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86",
      "Edge 131 on Windows",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
      "Firefox 133 on Windows",
    ],
    [
      "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
      "Firefox 128 on Linux",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
      "Safari 18 on macOS",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      "Safari 18 on iOS",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
      "Chrome 131 on iOS",
    ],
    [
      "Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
      "Safari 17 on iPadOS",
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
      "Chrome 131 on Android",
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
      "Samsung Internet 26 on Android",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
      "Opera 115 on Windows",
    ],
    [
      "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      "Chrome 131 on ChromeOS",
    ],
    [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
      "Chrome 156 on Linux",
    ],
    ["curl/8.5.0", "curl 8"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) SomethingNew/1.0", "Windows"],
    ["a-bot-of-its-own", "Unknown client"],
  ])("%s → %s", (userAgent, expected) => {
    expect(describeClient(userAgent)).toBe(expected);
  });

  test("no header gives null; a huge header gives at most 64 characters", () => {
    expect(describeClient(null)).toBeNull();
    expect(describeClient("")).toBeNull();
    const long = `Mozilla/5.0 (Windows NT 10.0) ${"x".repeat(100_000)} Firefox/133.0`;
    expect(describeClient(long)?.length ?? 0).toBeLessThanOrEqual(64);
  });
});

describe("truncateIp", () => {
  test.each([
    ["203.0.113.7", "203.0.113.0"],
    ["203.0.113.7:443", "203.0.113.0"],
    ["::ffff:198.51.100.23", "198.51.100.0"],
    ["2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3::"],
    ["2001:db8:85a3::1", "2001:db8:85a3::"],
    ["[2001:db8:85a3::1]:443", "2001:db8:85a3::"],
    ["2001:db8::1", "2001:db8::"],
    ["fe80::1%eth0", "fe80::"],
    ["::1", "::"],
  ])("%s → %s", (ip, expected) => {
    expect(truncateIp(ip)).toBe(expected);
  });

  test.each(["", "unknown", "256.1.1.1", "1.2.3", "2001:db8:::1", "1:2:3:4:5:6:7:8:9", "<script>"])(
    "%j is no address: null",
    (ip) => {
      expect(truncateIp(ip)).toBeNull();
    },
  );
});

describe("session ids", () => {
  test("a database session's public id is SHA-256 of its token, base64url, 22 characters", async () => {
    const token = "3f0c1c8e-6a4b-4f7e-9d11-0c2b8f3a5e77";
    const expected = createHash("sha256").update(token).digest("base64url").slice(0, 22);
    const id = await publicSessionId(token);
    expect(id).toBe(expected);
    expect(isSessionId(id)).toBe(true);
    expect(id).not.toContain(token.slice(0, 8));
  });

  test("JWT session ids are random and well-formed", () => {
    const ids = new Set(Array.from({ length: 100 }, newSessionId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(isSessionId(id)).toBe(true);
    expect(isSessionId("legacy")).toBe(false);
    expect(isSessionId(`${"a".repeat(21)}/`)).toBe(false);
  });
});
