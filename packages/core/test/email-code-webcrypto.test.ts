/**
 * A runtime without `node:crypto` (an edge worker) hashes a one-time code through WebCrypto: the
 * stored hash must be the very HMAC-SHA256 the Node path writes, or codes sent by one runtime
 * would never match in the other.
 */
import { createHmac } from "node:crypto";
import { expect, test, vi } from "vitest";

vi.mock("../src/lib/crypto/node.js", () => ({ nodeCrypto: undefined }));

test("without node:crypto the code's hash is the same HMAC-SHA256, through WebCrypto", async () => {
  const { codeHash } = await import("../src/lib/sign-in/email/code.js");
  const expected = createHmac("sha256", "the secret")
    .update("gatehouse.email-code|nonce|alice@example.com|12345678")
    .digest("hex");
  expect(await codeHash("the secret", "nonce", "alice@example.com", "12345678")).toBe(expected);
});
