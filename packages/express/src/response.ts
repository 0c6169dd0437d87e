/**
 * A web `Response` written to an Express response: status, headers (each `Set-Cookie` on a line
 * of its own, after any the app already set), and the body streamed with backpressure.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { appendCookies, type ResponseHeadersHolder } from "@gatehousejs/core/integration";
import type { Response as ExpressResponse } from "express";

/**
 * Appends `Set-Cookie` values to a response that may already carry some (a session middleware's,
 * say), keeping each one a header line of its own.
 */
export function appendSetCookies(res: ExpressResponse, cookies: readonly string[]): void {
  if (cookies.length === 0) return;
  const current = res.getHeader("set-cookie");
  const before = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  res.setHeader("set-cookie", [...before, ...cookies]);
}

/** Each response's holder for the kit's `appendCookies`, which sets a cookie name once. */
const holders = new WeakMap<ExpressResponse, ResponseHeadersHolder>();

/**
 * Adds the cookies a session check (or a CSRF token read) set to the response of the page, once
 * per cookie name however many helpers read the same request. Once the response's headers are
 * sent, setting one throws and the kit drops the cookies: the session rolls on a later request.
 */
export function forwardCookies(res: ExpressResponse, cookies: readonly string[]): void {
  let holder = holders.get(res);
  if (!holder) {
    const append = (_name: string, value: string) => appendSetCookies(res, [value]);
    holder = { response: { headers: { append } } };
    holders.set(res, holder);
  }
  appendCookies(holder, [...cookies]);
}

/**
 * Writes `response` to `res` and resolves once it is sent. The body is piped with backpressure;
 * when the client goes away first, the body's stream is cancelled and the promise rejects
 * (`ERR_STREAM_PREMATURE_CLOSE`), which the caller ignores.
 */
export async function sendResponse(response: Response, res: ExpressResponse): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") res.setHeader(name, value);
  }
  appendSetCookies(res, response.headers.getSetCookie());
  if (!response.body) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  await pipeline(body, res);
}
