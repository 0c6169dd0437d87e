/**
 * Just enough PNG decoding to tell a blank screenshot from a real one: the image size and how
 * many distinct colours its pixels use (8-bit RGB or RGBA, non-interlaced, as Chromium writes).
 */
import { inflateSync } from "node:zlib";

export interface PngSummary {
  width: number;
  height: number;
  /** Distinct colours, counted up to `limit`. */
  colours: number;
}

const SIGNATURE = "89504e470d0a1a0a";

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Decodes `png` and counts its colours (stopping at `limit`). */
export function summarizePng(png: Buffer, limit = 1_000): PngSummary {
  if (png.subarray(0, 8).toString("hex") !== SIGNATURE) throw new Error("not a PNG");
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("ascii", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colourType, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || interlace !== 0 || (colourType !== 2 && colourType !== 6)) {
        throw new Error("only 8-bit non-interlaced RGB(A) PNGs are supported");
      }
      channels = colourType === 2 ? 3 : 4;
    } else if (type === "IDAT") {
      data.push(body);
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  let previous = new Uint8Array(stride);
  const colours = new Set<string>();
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = new Uint8Array(stride);
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? row[x - channels]! : 0;
      const up = previous[x]!;
      const upLeft = x >= channels ? previous[x - channels]! : 0;
      const predictor =
        filter === 1
          ? left
          : filter === 2
            ? up
            : filter === 3
              ? (left + up) >> 1
              : filter === 4
                ? paeth(left, up, upLeft)
                : 0;
      row[x] = (line[x]! + predictor) & 0xff;
    }
    if (colours.size < limit) {
      for (let x = 0; x < stride; x += channels) {
        colours.add(Buffer.from(row.subarray(x, x + channels)).toString("hex"));
      }
    }
    previous = row;
  }
  return { width, height, colours: Math.min(colours.size, limit) };
}
