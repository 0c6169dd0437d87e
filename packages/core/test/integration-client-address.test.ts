/**
 * Which socket addresses the integration kit takes for the client: public ones, and outside
 * production loopback ones (see docs/rate-limits.md).
 */
import { isLoopbackAddress, isPublicAddress } from "@gatehousejs/core/integration";
import { expect, test } from "vitest";

test("public and non-public peers", () => {
  for (const a of ["198.51.100.7", "8.8.8.8", "2001:db8::1", "::ffff:203.0.113.1"]) {
    expect(isPublicAddress(a)).toBe(true);
  }
  for (const a of [
    "127.0.0.1",
    "10.1.2.3",
    "172.20.0.1",
    "192.168.0.2",
    "100.64.0.1",
    "169.254.1.1",
    "::1",
    "fd12::1",
    "fe80::1",
    "::ffff:10.0.0.1",
    "unknown",
    "",
  ]) {
    expect(isPublicAddress(a)).toBe(false);
  }
});

test("loopback addresses", () => {
  for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) {
    expect(isLoopbackAddress(a)).toBe(true);
  }
  for (const a of ["128.0.0.1", "10.0.0.1", "127.0.0.300", "::2", "fe80::1", "localhost", ""]) {
    expect(isLoopbackAddress(a)).toBe(false);
  }
});
