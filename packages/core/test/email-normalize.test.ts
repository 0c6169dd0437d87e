/**
 * The default normaliser of email sign-in, `normalizeEmail` from
 * `@gatehousejs/core/providers/email`: what it accepts and turns into what, and what it refuses.
 */
import { normalizeEmail } from "@gatehousejs/core/providers/email";
import { describe, expect, test } from "vitest";

const local308 = "a".repeat(308);

describe("normalizeEmail accepts and normalises", () => {
  test.each([
    ["a plain address", "alice@example.com", "alice@example.com"],
    ["upper case", "Alice@Example.COM", "alice@example.com"],
    ["surrounding whitespace", "  alice@example.com \t\n", "alice@example.com"],
    ["a no-break space around it", "\u00A0alice@example.com\u00A0", "alice@example.com"],
    ["full-width letters (NFKC)", "ａｌｉｃｅ@ｅｘａｍｐｌｅ.ｃｏｍ", "alice@example.com"],
    ["a single full-width ＠ (NFKC)", "alice＠example.com", "alice@example.com"],
    ["the Kelvin sign (NFKC, then lower case)", "\u212Aelvin@example.com", "kelvin@example.com"],
    ["a ligature (NFKC)", "\uFB01sh@example.com", "fish@example.com"],
    ["a plus tag", "Alice+News@example.com", "alice+news@example.com"],
    [
      "dots in the local part and subdomains",
      "first.last@mail.example.co.uk",
      "first.last@mail.example.co.uk",
    ],
    ["an apostrophe", "o'brien@example.com", "o'brien@example.com"],
    ["a non-ASCII local part", "ÉLODIE@exemple.fr", "élodie@exemple.fr"],
    ["an internationalised domain", "alice@BÜCHER.example", "alice@bücher.example"],
    ["a punycode domain", "alice@xn--bcher-kva.example", "alice@xn--bcher-kva.example"],
    ["exactly 320 characters", `${local308}@example.com`, `${local308}@example.com`],
    ["320 characters once trimmed", `  ${local308}@example.com  `, `${local308}@example.com`],
  ])("%s", (_, input, expected) => {
    expect(normalizeEmail(input)).toBe(expected);
  });

  test("is idempotent", () => {
    for (const input of ["  Alice+X@Example.COM ", "ａｌｉｃｅ＠example.com"]) {
      const once = normalizeEmail(input);
      expect(normalizeEmail(once)).toBe(once);
    }
  });
});

describe("normalizeEmail refuses", () => {
  test.each([
    ["an empty string", ""],
    ["only whitespace", " \t "],
    ["no @", "alice.example.com"],
    ["two @", "alice@example.com@attacker.example"],
    ["a full-width ＠ that makes a second @", "victim＠example.com@attacker.example"],
    ["a small ﹫ that makes a second @", "victim﹫example.com@attacker.example"],
    ["only an @", "@"],
    ["an empty local part", "@example.com"],
    ["an empty domain", "alice@"],
    ["double quotes", '"alice"@example.com'],
    ["a quoted @", '"victim@example.com"@attacker.example'],
    ["a full-width quote (NFKC makes it a quote)", "＂alice＂@example.com"],
    ["a comma in the domain", "alice@example.com,attacker.example"],
    ["a comma inside the domain", "alice@exa,mple.com"],
    ["a space inside", "alice @example.com"],
    ["an ideographic space inside (NFKC makes it a space)", "alice\u3000@example.com"],
    ["a tab inside", "alice\t@example.com"],
    ["a CRLF inside", "alice@example.com\r\nBcc: attacker@evil.example"],
    ["a leading dot in the domain", "alice@.example.com"],
    ["a trailing dot in the domain", "alice@example.com."],
    ["a double dot in the domain", "alice@example..com"],
    ["321 characters", `a${local308}@example.com`],
    ["400 characters", `${"a".repeat(388)}@example.com`],
  ])("%s", (_, input) => {
    expect(() => normalizeEmail(input)).toThrow();
  });

  test("a value that is not a string", () => {
    for (const input of [undefined, null, 42, ["a@example.com"], { email: "a@example.com" }]) {
      expect(() => normalizeEmail(input as unknown as string)).toThrow();
    }
  });

  test("the error never repeats the address", () => {
    const input = "secret.person@private.example@x";
    let message = "";
    try {
      normalizeEmail(input);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toBe("");
    expect(message).not.toContain("secret.person");
    expect(message).not.toContain("private.example");
  });
});

describe("normalizeEmail refuses what mail software would read as something else", () => {
  // A mail library reads the address as RFC 5322 text: angle brackets, comments, groups and
  // lists change where the message goes (see email-security.test.ts), and invisible characters
  // make an address nobody can type twice. Unquoted, none of these belong in an address.
  test.each([
    ["angle brackets", "victim<attacker@evil.example>"],
    ["a comment", "attacker@evil.example(company.com"],
    ["parentheses in the local part", "a(b)@example.com"],
    ["a semicolon", "someone;attacker@evil.example"],
    ["a comma in the local part", "someone,attacker@evil.example"],
    ["a group colon", "group:attacker@evil.example"],
    ["a backslash", "ali\\ce@example.com"],
    ["a NUL byte", "attacker\u0000@evil.example"],
    ["a control character", "alice\u0007@example.com"],
    ["a zero-width space", "alice\u200B@example.com"],
    ["a right-to-left override", "alice\u202E@example.com"],
    ["a soft hyphen", "al\u00ADice@example.com"],
  ])("%s", (_, input) => {
    expect(() => normalizeEmail(input)).toThrow();
  });
});
