/**
 * The body of a request for `Auth()`: streamed from the socket as it arrives, or rebuilt from
 * `req.body` when a body parser (`express.json()`, `express.urlencoded()`, `express.text()`,
 * `express.raw()`) already read the stream.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";

/** Whether something before the router read the request's body stream to its end. */
function consumed(req: ExpressRequest): boolean {
  // body-parser 1.x (Express 4) marks what it read with `_body`; 2.x (Express 5) checks, as
  // here, whether the stream has ended.
  return (
    (req as { _body?: unknown })._body === true ||
    req.readableEnded ||
    (req.complete && !req.readable)
  );
}

/** Whether the request announces a body at all (RFC 9112: a length or a transfer coding). */
function announcesBody(req: ExpressRequest): boolean {
  return (
    req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined
  );
}

/**
 * The request's body stream, read as `Auth()` asks for it: the socket is paused while the reader
 * does not keep up. When the reader cancels (core's size limit was reached), the rest is not
 * read: the listeners are removed and the connection is closed after the response, so a client
 * cannot keep the server reading a body nobody wants.
 */
function streamOf(req: ExpressRequest, res: ExpressResponse): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer | string) => {
          const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
          controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          detach();
          controller.close();
        };
        const onError = (error: Error) => {
          detach();
          controller.error(error);
        };
        // A client gone mid-body: the reader must not wait for the rest forever.
        const onClose = () =>
          onError(new Error("The client closed the request before its body ended"));
        detach = () => {
          req.off("data", onData);
          req.off("end", onEnd);
          req.off("error", onError);
          req.off("close", onClose);
        };
        req.on("data", onData);
        req.once("end", onEnd);
        req.once("error", onError);
        req.once("close", onClose);
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
        if (!res.headersSent) res.setHeader("Connection", "close");
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** A form value as `key=value` pairs, nested objects and arrays in the bracket form qs reads. */
function appendField(form: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) appendField(form, key, item);
  } else if (value !== null && typeof value === "object") {
    for (const [name, inner] of Object.entries(value)) appendField(form, `${key}[${name}]`, inner);
  } else {
    form.append(key, value === null ? "" : String(value));
  }
}

/** The media type of a `Content-Type` header, lower-cased, without parameters. */
function mediaType(header: string | null): string {
  return (header ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

/**
 * The body a parser left in `req.body`, as bytes of the request's media type: a `Buffer`
 * (`express.raw()`) as it is, a string (`express.text()`) as UTF-8, an object as the form or the
 * JSON it was parsed from. The parser decoded the charset and any `Content-Encoding`, so the
 * rebuilt body is plain UTF-8 and the headers say so, with its own `Content-Length`: core's size
 * limit counts the rebuilt body.
 */
function rebuilt(parsed: unknown, headers: Headers): Uint8Array<ArrayBuffer> | null {
  const type = mediaType(headers.get("content-type"));
  // Node's buffers sit on plain `ArrayBuffer`s, never shared ones.
  let bytes: Uint8Array<ArrayBuffer> | null;
  if (parsed === undefined) bytes = null;
  else if (Buffer.isBuffer(parsed)) bytes = parsed as Uint8Array<ArrayBuffer>;
  else if (typeof parsed === "string") bytes = Buffer.from(parsed, "utf8");
  else if (type === "application/x-www-form-urlencoded" && parsed !== null) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(parsed)) appendField(form, key, value);
    bytes = Buffer.from(form.toString(), "utf8");
  } else bytes = Buffer.from(JSON.stringify(parsed), "utf8");
  headers.delete("content-encoding");
  headers.delete("transfer-encoding");
  if (bytes === null) {
    headers.delete("content-length");
    return null;
  }
  if (type && !Buffer.isBuffer(parsed)) headers.set("content-type", `${type}; charset=utf-8`);
  headers.set("content-length", String(bytes.byteLength));
  return bytes;
}

/**
 * The body of a request that may carry one: rebuilt from `req.body` when the stream was already
 * read, else the stream itself; `null` when the request announces no body. `headers` (the web
 * request's) are corrected to describe a rebuilt body.
 */
export function bodyOf(
  req: ExpressRequest,
  res: ExpressResponse,
  headers: Headers,
): ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null {
  if (consumed(req)) return rebuilt((req as { body?: unknown }).body, headers);
  if (!announcesBody(req)) return null;
  return streamOf(req, res);
}
