/**
 * The one-time code rules at their edges, through the module's functions: which code shapes a
 * provider may ask for (length, alphabet, strength; the error names the provider), and how what a
 * user typed is read (width, spaces, dashes, case, length).
 */
import type { EmailConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { type CodeShape, codeShape, normalizeCodeInput } from "../src/lib/sign-in/email/code.js";

const provider = (code: EmailConfig["code"]) => ({ id: "mailer", code }) as EmailConfig;
/** `n` distinct non-space characters. */
const distinct = (n: number) =>
  Array.from({ length: n }, (_, i) => String.fromCodePoint(0x100 + i)).join("");

describe("code shapes", () => {
  test("no code option sends no codes; true is 8 digits", () => {
    expect(codeShape(provider(undefined))).toBeUndefined();
    expect(codeShape(provider(false))).toBeUndefined();
    expect(codeShape(provider(true))).toEqual({ length: 8, alphabet: "0123456789" });
    expect(codeShape(provider({}))).toEqual({ length: 8, alphabet: "0123456789" });
  });

  test.each<[string, { length?: number; alphabet?: string }]>([
    ["4 characters of 32 (20 bits)", { length: 4, alphabet: distinct(32) }],
    ["32 digits", { length: 32 }],
    ["20 characters of 2 (20 bits)", { length: 20, alphabet: "01" }],
    ["256 distinct characters", { length: 4, alphabet: distinct(256) }],
    ["7 digits (23 bits)", { length: 7 }],
  ])("%s is a valid shape", (_, shape) => {
    expect(codeShape(provider(shape))).toEqual({
      length: shape.length ?? 8,
      alphabet: shape.alphabet ?? "0123456789",
    });
  });

  test.each<[string, { length?: number; alphabet?: string }]>([
    ["3 characters", { length: 3, alphabet: distinct(256) }],
    ["33 digits", { length: 33 }],
    ["a length that is not whole", { length: 8.5 }],
    ["one character", { length: 32, alphabet: "0" }],
    ["257 distinct characters", { length: 8, alphabet: distinct(257) }],
    ["a repeated character", { length: 8, alphabet: "0123456780" }],
    ["a space in the alphabet", { length: 8, alphabet: "0123 456789" }],
    ["6 digits (under 20 bits)", { length: 6 }],
  ])("%s is refused, and the error names the provider", (_, shape) => {
    expect(() => codeShape(provider(shape))).toThrow(
      /^The code option of email provider "mailer" is invalid/,
    );
  });
});

describe("reading a typed code", () => {
  const digits: CodeShape = { length: 8, alphabet: "0123456789" };
  const upper: CodeShape = { length: 6, alphabet: "ABCDEFGHJKLMNPQR" };
  const lower: CodeShape = { length: 6, alphabet: "abcdefghjkmnpqrs" };
  const mixed: CodeShape = { length: 6, alphabet: "abcdefABCDEF" };
  const dashed: CodeShape = { length: 6, alphabet: "0123456789-" };

  test("full-width digits, spaces, tabs and dashes are read as the code", () => {
    expect(normalizeCodeInput("１２３４ ５６７８", digits)).toBe("12345678");
    expect(normalizeCodeInput("1234-5678", digits)).toBe("12345678");
    expect(normalizeCodeInput(" 12\t34\n56 78 ", digits)).toBe("12345678");
  });

  test("up to 256 characters are read; more are not", () => {
    const padded = `1234 5678${" ".repeat(256 - 9)}`;
    expect(padded).toHaveLength(256);
    expect(normalizeCodeInput(padded, digits)).toBe("12345678");
    expect(normalizeCodeInput(`${padded} `, digits)).toBeUndefined();
  });

  test("a dash in the alphabet is kept", () => {
    expect(normalizeCodeInput("12-456", dashed)).toBe("12-456");
    expect(normalizeCodeInput("12-45", dashed)).toBeUndefined();
  });

  test("case is folded toward the alphabet's own case, and kept when it has both", () => {
    expect(normalizeCodeInput("abcdef", upper)).toBe("ABCDEF");
    expect(normalizeCodeInput("ABCDEF", lower)).toBe("abcdef");
    expect(normalizeCodeInput("abcDEF", mixed)).toBe("abcDEF");
    expect(normalizeCodeInput("abcdeg", mixed)).toBeUndefined();
  });

  test("not a string, the wrong length, or a character outside the alphabet is no code", () => {
    expect(normalizeCodeInput(12345678, digits)).toBeUndefined();
    expect(normalizeCodeInput(["12345678"], digits)).toBeUndefined();
    expect(normalizeCodeInput("1234567", digits)).toBeUndefined();
    expect(normalizeCodeInput("123456789", digits)).toBeUndefined();
    expect(normalizeCodeInput("1234567a", digits)).toBeUndefined();
  });

  test("length counts characters, not UTF-16 units", () => {
    const astral: CodeShape = {
      length: 4,
      alphabet: "😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙🥲😚🙂🤗🤩🤔🫡🤨😐😑😶🫥😏😒🙄",
    };
    expect(normalizeCodeInput("😀😁😂🤣", astral)).toBe("😀😁😂🤣");
    expect(normalizeCodeInput("😀😁😂", astral)).toBeUndefined();
  });
});
