/**
 * The enrolment QR code, drawn as SVG on the server: no image service sees the `otpauth://` URI
 * (it holds the secret), and the page needs no script. `uqr` encodes; this file draws. `uqr` is
 * imported only when a QR code is asked for, so no other request loads it.
 *
 * The drawing is one `<path>` of horizontal runs of dark modules on a white square, with the
 * four-module quiet zone the QR specification asks for, sized by its `viewBox` so the page decides
 * how large it shows. The only URL in it is the SVG namespace, an identifier nothing fetches.
 */

/** The options of {@link qrSvg}. */
export interface QrSvgOptions {
  /** The text read to screen readers (`aria-label`). Default `"QR code"`. */
  label?: string;
}

function escapeAttribute(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** Modules of white around the code, as the QR specification requires. */
const QUIET_ZONE = 4;

/**
 * `text` as a QR code in a self-contained SVG string (error correction level M), for an
 * enrolment page to show beside the secret typed out.
 *
 * @example
 * ```ts
 * const svg = await qrSvg(otpauthUri({ issuer: "Example", account: email, secret }));
 * ```
 */
export async function qrSvg(text: string, options: QrSvgOptions = {}): Promise<string> {
  const { encode } = await import("uqr");
  const { data, size } = encode(text, { ecc: "M", border: 0 });
  let path = "";
  data.forEach((row, y) => {
    let x = 0;
    while (x < size) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < size && row[x]) x++;
      path += `M${start + QUIET_ZONE} ${y + QUIET_ZONE}h${x - start}v1h-${x - start}z`;
    }
  });
  const side = size + 2 * QUIET_ZONE;
  const label = escapeAttribute(options.label ?? "QR code");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" ` +
    `shape-rendering="crispEdges" role="img" aria-label="${label}">` +
    `<rect width="${side}" height="${side}" fill="#fff"/>` +
    `<path d="${path}" fill="#000"/></svg>`
  );
}
