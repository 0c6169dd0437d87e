/**
 * The sealed TOTP secret: it opens with the secret that sealed it (also after rotation, with that
 * secret later in the list), and with nothing else; any change to the sealed text, any other
 * secret or context, any truncated or foreign text gives `null`; the plain secret shows in no form.
 */
import { describe, expect, test } from "vitest";
import { base64, base64url, hex, utf8 } from "../src/lib/crypto/encoding.js";
import { MissingSecret } from "../src/lib/errors.js";
import { openSecret, sealSecret } from "../src/lib/features/two-factor/secret-box.js";
import { generateTotpSecret } from "../src/lib/features/two-factor/totp.js";

const OLD = "an old secret of at least thirty-two characters";
const NEW = "the new secret, also thirty-two characters or more";

/** `text` with the character at `index` replaced by another of the base64url alphabet. */
function flip(text: string, index: number): string {
  const char = text.charAt(index);
  const other = char === "A" ? "B" : "A";
  return text.slice(0, index) + other + text.slice(index + 1);
}

describe("sealing and opening", () => {
  test("a sealed secret opens to itself", async () => {
    const plain = generateTotpSecret();
    const sealed = await sealSecret([NEW], plain);
    expect(await openSecret([NEW], sealed)).toBe(plain);
  });

  test("the sealed form is v1.<kid>.<iv>.<ciphertext>, with a new IV each time", async () => {
    const plain = generateTotpSecret();
    const a = await sealSecret([NEW], plain);
    const b = await sealSecret([NEW], plain);
    const shape = /^v1\.([A-Za-z0-9_-]{11})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)$/;
    expect(a).toMatch(shape);
    expect(b).toMatch(shape);
    expect(a).not.toBe(b);
    const [, kidA, ivA] = shape.exec(a)!;
    const [, kidB, ivB] = shape.exec(b)!;
    expect(kidA).toBe(kidB);
    expect(ivA).not.toBe(ivB);
    const other = shape.exec(await sealSecret([OLD], plain))!;
    expect(other[1]).not.toBe(kidA);
  });

  test("the plain secret appears in the sealed text in no encoding", async () => {
    const plain = generateTotpSecret();
    const sealed = await sealSecret([NEW], plain);
    const bytes = utf8(plain);
    for (const form of [plain, plain.toLowerCase(), base64url(bytes), base64(bytes), hex(bytes)]) {
      expect(sealed).not.toContain(form);
      expect(sealed).not.toContain(form.slice(0, 12));
    }
  });

  test("any text round-trips, non-ASCII and empty included", async () => {
    for (const plain of ["", "ünïcödé ✓", "x".repeat(1000)]) {
      expect(await openSecret([NEW], await sealSecret([NEW], plain))).toBe(plain);
    }
  });
});

describe("rotation", () => {
  test("a value sealed with the old secret opens once the new one is first", async () => {
    const plain = generateTotpSecret();
    const sealed = await sealSecret([OLD], plain);
    expect(await openSecret([NEW, OLD], sealed)).toBe(plain);
  });

  test("the first secret seals: the new value opens without the old secret", async () => {
    const plain = generateTotpSecret();
    const sealed = await sealSecret([NEW, OLD], plain);
    expect(await openSecret([NEW], sealed)).toBe(plain);
    expect(await openSecret([OLD], sealed)).toBeNull();
  });

  test("once the old secret is dropped, values sealed with it no longer open", async () => {
    const sealed = await sealSecret([OLD], generateTotpSecret());
    expect(await openSecret([NEW], sealed)).toBeNull();
  });
});

describe("what does not open", () => {
  test("another secret", async () => {
    const sealed = await sealSecret([NEW], generateTotpSecret());
    expect(await openSecret([OLD], sealed)).toBeNull();
    expect(await openSecret([`${NEW}x`], sealed)).toBeNull();
  });

  test("another context, or none, than the one it was sealed with", async () => {
    const plain = generateTotpSecret();
    const sealed = await sealSecret([NEW], plain, { context: "user-1" });
    expect(await openSecret([NEW], sealed, { context: "user-1" })).toBe(plain);
    expect(await openSecret([NEW], sealed, { context: "user-2" })).toBeNull();
    expect(await openSecret([NEW], sealed)).toBeNull();
    const unbound = await sealSecret([NEW], plain);
    expect(await openSecret([NEW], unbound, { context: "user-1" })).toBeNull();
  });

  test("a change to any character", async () => {
    const sealed = await sealSecret([NEW], generateTotpSecret());
    for (let i = 0; i < sealed.length; i++) {
      if (sealed.charAt(i) === ".") continue;
      expect(await openSecret([NEW], flip(sealed, i)), `character ${i}`).toBeNull();
    }
  });

  test("a key id, IV or ciphertext moved from another sealed value", async () => {
    const a = (await sealSecret([NEW], generateTotpSecret())).split(".");
    const b = (await sealSecret([NEW], generateTotpSecret())).split(".");
    const c = (await sealSecret([OLD], generateTotpSecret())).split(".");
    expect(await openSecret([NEW], [a[0], a[1], b[2], a[3]].join("."))).toBeNull();
    expect(await openSecret([NEW], [a[0], a[1], a[2], b[3]].join("."))).toBeNull();
    expect(await openSecret([NEW, OLD], [c[0], a[1], c[2], c[3]].join("."))).toBeNull();
    expect(await openSecret([NEW, OLD], [a[0], c[1], a[2], a[3]].join("."))).toBeNull();
  });

  test("every truncation of a sealed value", async () => {
    const sealed = await sealSecret([NEW], generateTotpSecret());
    for (let length = 0; length < sealed.length; length++) {
      expect(await openSecret([NEW], sealed.slice(0, length)), `length ${length}`).toBeNull();
    }
  });

  test("foreign and garbage input, without throwing", async () => {
    const sealed = await sealSecret([NEW], generateTotpSecret());
    const [, kid, iv, ciphertext] = sealed.split(".") as [string, string, string, string];
    const inputs: unknown[] = [
      "",
      "v1",
      "...",
      "v1...",
      "v1.a.b.c",
      `v2.${kid}.${iv}.${ciphertext}`,
      `V1.${kid}.${iv}.${ciphertext}`,
      `v1.${kid}.${iv}.${ciphertext}.`,
      `v1.${kid}.${iv}.${ciphertext}=`,
      `v1.${kid}.${iv}==.${ciphertext}`,
      `v1.${kid}.${iv}.${ciphertext} `,
      `v1.${kid}.${iv}.`,
      `v1.${kid}.${iv}.${ciphertext.slice(0, 20)}`,
      `v1.${kid}.${iv}AA.${ciphertext}`,
      `v1.${kid}.${iv}.+${ciphertext.slice(1)}`,
      `v1.${kid}.${iv}./${ciphertext.slice(1)}`,
      `v1.${kid.slice(1)}+.${iv}.${ciphertext}`,
      `v1.${kid}.${iv}.${"A".repeat(5000)}`,
      "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..iv.ct.tag",
      null,
      undefined,
      42,
      { toString: () => sealed },
      [sealed],
    ];
    for (const input of inputs) {
      expect(await openSecret([NEW], input), String(input)).toBeNull();
    }
  });
});

describe("configuration", () => {
  test("no secret, or only empty ones, is a MissingSecret whose message holds no value", async () => {
    await expect(sealSecret([], "JBSWY3DPEHPK3PXP")).rejects.toBeInstanceOf(MissingSecret);
    await expect(sealSecret([""], "JBSWY3DPEHPK3PXP")).rejects.toBeInstanceOf(MissingSecret);
    const error = await openSecret([], "v1.a.b.c").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingSecret);
    expect((error as Error).message).not.toContain("v1.a.b.c");
  });

  test("an empty entry in the list is skipped, not used as a key", async () => {
    const plain = generateTotpSecret();
    const sealed = await sealSecret(["", NEW], plain);
    expect(await openSecret([NEW], sealed)).toBe(plain);
  });
});
