/** The memory store's per-client counters keyed by address: exact keys, windows, growth, bound. */
import { describe, expect, test } from "vitest";
import { parseIp } from "../src/lib/client-address.js";
import { AddressTable, addressWords } from "../src/lib/features/rate-limit/address-table.js";
import { MemoryRateLimitStore, syncStore } from "../src/lib/features/rate-limit/memory.js";

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`not an address: ${text}`);
  return parsed;
};
const none = () => {};

describe("AddressTable", () => {
  test("counts per address in a fixed window; an ended counter starts again at 1", () => {
    const table = new AddressTable();
    expect(table.hit(ip("203.0.113.7"), 1000, 0, none)).toEqual({ count: 1, resetAt: 1000 });
    expect(table.hit(ip("203.0.113.7"), 1000, 500, none)).toEqual({ count: 2, resetAt: 1000 });
    expect(table.hit(ip("203.0.113.8"), 1000, 500, none)).toEqual({ count: 1, resetAt: 1500 });
    expect(table.hit(ip("203.0.113.7"), 1000, 1000, none)).toEqual({ count: 1, resetAt: 2000 });
    expect(table.size).toBe(2);
  });

  test("an IPv6 /64 is one key; an IPv4 address never meets an IPv6 prefix with the same words", () => {
    const table = new AddressTable();
    table.hit(ip("2001:db8:1:2::1"), 60_000, 0, none);
    expect(table.hit(ip("2001:db8:1:2:ffff::9"), 60_000, 0, none).count).toBe(2);
    expect(table.hit(ip("2001:db8:1:3::1"), 60_000, 0, none).count).toBe(1);
    // 0.0.0.1 and ::1's /64 (0:0:0:1::) give the same two words; the version keeps them apart.
    expect(addressWords(ip("0.0.0.1")).slice(0, 2)).toEqual(
      addressWords(ip("0:0:0:1::")).slice(0, 2),
    );
    expect(table.hit(ip("0.0.0.1"), 60_000, 0, none).count).toBe(1);
    expect(table.hit(ip("0:0:0:1::5"), 60_000, 0, none).count).toBe(1);
    expect(table.hit(ip("0.0.0.1"), 60_000, 0, none).count).toBe(2);
  });

  test("grows past its first size and keeps every count exact", () => {
    const table = new AddressTable();
    const addresses = Array.from(
      { length: 20_000 },
      (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
    );
    for (const a of addresses) table.hit(ip(a), 60_000, 0, none);
    for (const a of addresses.slice(0, 5000)) table.hit(ip(a), 60_000, 1, none);
    expect(table.size).toBe(20_000);
    for (const [i, a] of addresses.entries()) {
      expect(table.hit(ip(a), 60_000, 2, none).count).toBe(i < 5000 ? 3 : 2);
    }
  });

  test("evicts counters nobody hit before busy ones, and finds keys past freed slots", () => {
    const table = new AddressTable();
    for (let i = 0; i < 100; i++) table.hit(ip(`192.0.2.${i}`), 60_000, 0, none);
    // Hit again: marked busy.
    for (let i = 0; i < 10; i++) table.hit(ip(`192.0.2.${i}`), 60_000, 0, none);
    expect(table.evict(90, 0)).toBe(90);
    expect(table.size).toBe(10);
    for (let i = 0; i < 10; i++)
      expect(table.hit(ip(`192.0.2.${i}`), 60_000, 0, none).count).toBe(3);
    // The freed slots are reused, and lookups still find what sits beyond them.
    for (let i = 100; i < 200; i++) table.hit(ip(`192.0.2.${i - 100}`), 60_000, 0, none);
    expect(table.size).toBe(100);
  });

  test("ended counters are swept as new ones arrive: a stream of one-time clients stays small", () => {
    const table = new AddressTable();
    for (let i = 0; i < 50_000; i++) {
      table.hit(ip(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`), 10, i, none);
    }
    expect(table.size).toBeLessThan(1000);
  });
});

describe("per-client counters in the memory store", () => {
  test("share the store's bound; a busy client survives a flood of new ones", () => {
    const store = MemoryRateLimitStore({ maxEntries: 1000 });
    const sync = syncStore(store)!;
    for (let i = 0; i < 20_000; i++) {
      sync.hitAddress(
        "credentials.perClient",
        ip(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`),
        60_000,
      );
      if (i % 100 === 0) sync.hitAddress("credentials.perClient", ip("198.51.100.7"), 60_000);
    }
    const busy = sync.hitAddress("credentials.perClient", ip("198.51.100.7"), 60_000);
    expect(busy.count).toBe(201);
    // Within the bound: at most 1,000 counters, and at least the bound less one eviction's worth.
    let held = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = ip(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
      if (sync.peekAddress("credentials.perClient", a)) held++;
    }
    expect(held + 1).toBeLessThanOrEqual(1000);
    expect(held + 1).toBeGreaterThanOrEqual(1000 - (1000 >> 4) - 1);
  });

  test("each limit has its own counters", () => {
    const sync = syncStore(MemoryRateLimitStore())!;
    sync.hitAddress("oauth.perClient", ip("203.0.113.7"), 60_000);
    expect(sync.hitAddress("webauthn.perClient", ip("203.0.113.7"), 60_000).count).toBe(1);
    expect(sync.hitAddress("oauth.perClient", ip("203.0.113.7"), 60_000).count).toBe(2);
  });
});
