/**
 * The enrolment QR code: a self-contained SVG whose dark modules are exactly the QR matrix `uqr`
 * encodes, with its quiet zone, drawn the same way every time, referring to nothing outside it,
 * and `uqr` loaded only once a QR code is asked for.
 */
import { describe, expect, test, vi } from "vitest";

const loads = vi.hoisted(() => ({ uqr: 0 }));
vi.mock("uqr", async (importOriginal) => {
  loads.uqr++;
  return importOriginal();
});

const uri =
  "otpauth://totp/Example:alice%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" +
  "&issuer=Example&algorithm=SHA1&digits=6&period=30";

/** The dark cells the SVG's path draws, as "x,y" strings, and the side of its view box. */
function drawn(svg: string): { cells: Set<string>; side: number } {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const d = /<path d="([^"]*)"/.exec(svg)![1]!;
  const cells = new Set<string>();
  for (const [, x, y, width, back] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)) {
    expect(back).toBe(width);
    for (let i = 0; i < Number(width); i++) cells.add(`${Number(x) + i},${y}`);
  }
  // The path is nothing but such runs.
  expect(d.replace(/M\d+ \d+h\d+v1h-\d+z/g, "")).toBe("");
  return { cells, side };
}

describe("qrSvg", () => {
  test("uqr is loaded only when a QR code is drawn", async () => {
    vi.resetModules();
    loads.uqr = 0;
    const { qrSvg } = await import("../src/lib/features/two-factor/qr.js");
    expect(loads.uqr).toBe(0);
    await qrSvg("hello");
    expect(loads.uqr).toBe(1);
  });

  test("is one self-contained <svg> element", async () => {
    const { qrSvg } = await import("../src/lib/features/two-factor/qr.js");
    const svg = await qrSvg(uri);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" ')).toBe(true);
    expect(svg.endsWith("</svg>")).toBe(true);
    expect(svg.match(/<svg/g)).toHaveLength(1);
    expect(svg).toMatch(/<rect width="\d+" height="\d+" fill="#fff"\/>/);
    expect(svg).toMatch(/<path d="M[^"]+" fill="#000"\/>/);
    // The namespace is an identifier, never fetched; nothing else names a place.
    const rest = svg.replace('xmlns="http://www.w3.org/2000/svg"', "");
    expect(rest).not.toMatch(/https?:|href|url\(|<image|<script|<style|<foreignObject|@import/i);
    // The secret is drawn, not written.
    expect(svg).not.toContain("JBSWY3DP");
  });

  test("draws exactly uqr's matrix for the text, with a four-module quiet zone", async () => {
    const { qrSvg } = await import("../src/lib/features/two-factor/qr.js");
    const { cells, side } = drawn(await qrSvg(uri));
    const { encode } = await vi.importActual<typeof import("uqr")>("uqr");
    const { data, size } = encode(uri, { ecc: "M", border: 0 });
    expect(side).toBe(size + 8);
    const expected = new Set<string>();
    data.forEach((row, y) => {
      row.forEach((dark, x) => {
        if (dark) expected.add(`${x + 4},${y + 4}`);
      });
    });
    expect(cells).toEqual(expected);
    // The three finder patterns: a dark 7×7 ring around a light ring around a dark 3×3 centre.
    for (const [ox, oy] of [
      [4, 4],
      [4 + size - 7, 4],
      [4, 4 + size - 7],
    ] as const) {
      for (let y = 0; y < 7; y++) {
        for (let x = 0; x < 7; x++) {
          const ring = Math.max(Math.abs(x - 3), Math.abs(y - 3));
          expect(cells.has(`${ox + x},${oy + y}`), `${ox + x},${oy + y}`).toBe(ring !== 2);
        }
      }
    }
    // Nothing is drawn in the quiet zone.
    for (const cell of cells) {
      const [x, y] = cell.split(",").map(Number) as [number, number];
      expect(x >= 4 && x < side - 4 && y >= 4 && y < side - 4).toBe(true);
    }
  });

  test("is the same for the same text, and differs for another", async () => {
    const { qrSvg } = await import("../src/lib/features/two-factor/qr.js");
    const a = await qrSvg(uri);
    expect(await qrSvg(uri)).toBe(a);
    expect(await qrSvg(uri.replace("alice", "bobby"))).not.toBe(a);
  });

  test("the accessible label is escaped", async () => {
    const { qrSvg } = await import("../src/lib/features/two-factor/qr.js");
    expect(await qrSvg("x")).toContain('role="img" aria-label="QR code"');
    const svg = await qrSvg("x", { label: 'Scan "me" <now> & then' });
    expect(svg).toContain('aria-label="Scan &quot;me&quot; &lt;now&gt; &amp; then"');
  });
});
