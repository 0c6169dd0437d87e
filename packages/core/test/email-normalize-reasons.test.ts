/**
 * Why the default email normaliser refuses an address: it throws `InvalidEmailAddress` (never a
 * stray `TypeError`), with a message naming the rule that failed, which is what reaches the log as
 * the cause of `EmailSignInError`. The message never repeats the address.
 */
import { describe, expect, it } from "vitest";
import { InvalidEmailAddress, normalizeEmail } from "../src/lib/email/normalize.js";

function refusal(input: unknown): InvalidEmailAddress {
  try {
    normalizeEmail(input as string);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidEmailAddress);
    return error as InvalidEmailAddress;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe("normalizeEmail says which rule refused the address", () => {
  it.each([
    ["not text", 42, "The email address is not text"],
    ["not text", undefined, "The email address is not text"],
    ["not text", { toString: () => "a@example.com" }, "The email address is not text"],
    ["empty", "", "The email address is empty or too long"],
    ["empty once trimmed", " \u00a0\t", "The email address is empty or too long"],
    ["too long", `${"a".repeat(309)}@example.com`, "The email address is empty or too long"],
    ["a space", "al ice@example.com", "The email address contains whitespace or quotes"],
    ["a tab", "alice@exa\tmple.com", "The email address contains whitespace or quotes"],
    ["a quote", 'al"ice@example.com', "The email address contains whitespace or quotes"],
    ["no @", "alice.example.com", "The email address must have exactly one @ between two parts"],
    ["two @", "a@b@example.com", "The email address must have exactly one @ between two parts"],
    [
      "no local part",
      "@example.com",
      "The email address must have exactly one @ between two parts",
    ],
    ["no domain", "alice@", "The email address must have exactly one @ between two parts"],
    ["a comma in the domain", "alice@a,b.com", "The email address has an invalid domain"],
    ["a leading dot", "alice@.example.com", "The email address has an invalid domain"],
    ["a trailing dot", "alice@example.", "The email address has an invalid domain"],
    ["two dots", "alice@example..com", "The email address has an invalid domain"],
    [
      "a character no address has",
      "alice<x>@example.com",
      "The email address has characters an address cannot have",
    ],
    [
      "a character no domain has",
      "alice@exam_ple.com",
      "The email address has characters an address cannot have",
    ],
  ])("%s: %j", (_, input, message) => {
    const error = refusal(input);
    expect(error.message).toBe(message);
    if (typeof input === "string" && input.trim().length > 3) {
      expect(error.message).not.toContain(input.trim());
    }
  });
});
