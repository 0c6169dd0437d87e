/**
 * An Express request as a web `Request`: its URL built from what Express's `trust proxy`
 * setting allows, every header as it arrived, the body streamed (or rebuilt from `req.body` when
 * a body parser read it first), and a signal that aborts when the client goes away.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { bodyOf } from "./body.js";

/** The first value of a comma-separated header, trimmed; undefined when empty. */
function firstValue(value: string | undefined): string | undefined {
  const first = value?.split(",", 1)[0]?.trim();
  return first ? first : undefined;
}

/**
 * The `host[:port]` Express reads the request's host from: `X-Forwarded-Host` only when the
 * `trust proxy` setting trusts the socket's peer, else `Host`. `req.hostname` applies the same
 * rule but drops the port, and Express 4's `req.host` is that same hostname, so the port is
 * read here from the header `req.hostname` came from.
 */
function authorityOf(req: ExpressRequest): string | undefined {
  const hostname = req.hostname;
  if (!hostname) return undefined;
  const trust: unknown = req.app?.get("trust proxy fn");
  const trusted = typeof trust === "function" && trust(req.socket.remoteAddress, 0) === true;
  const raw = (trusted && firstValue(req.get("x-forwarded-host"))) || req.get("host") || "";
  // `[::1]:3000` and `example.com:8080`: the port is what follows the host's last colon.
  const port = /:(\d{1,5})$/.exec(raw.startsWith("[") ? raw.slice(raw.indexOf("]")) : raw)?.[1];
  return port ? `${hostname}:${port}` : hostname;
}

/**
 * The path and query of the request as the client sent it (`req.originalUrl`, unaffected by
 * where a router is mounted). An absolute-form target keeps only its path and query.
 */
function pathOf(req: ExpressRequest): string {
  const target = req.originalUrl || req.url || "/";
  if (target.startsWith("/")) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return "/";
  }
}

/**
 * The pathname of the request as {@link urlOf} reads it (percent-encoding and dot segments
 * resolved as the URL parser resolves them), without reading the host: whether a request is
 * Gatehouse's is decided before its `Host` header is looked at.
 */
export function pathnameOf(req: ExpressRequest): string {
  return new URL(`http://localhost${pathOf(req)}`).pathname;
}

/**
 * The request's URL: protocol from `req.protocol`, host from `req.hostname` (both follow the
 * app's `trust proxy` setting), path from `req.originalUrl`. Throws a `TypeError` when the host
 * does not make a URL. The path is appended to the origin as text, so `//evil.example` stays a
 * path of this host.
 */
export function urlOf(req: ExpressRequest): URL {
  const protocol = req.protocol === "https" ? "https" : "http";
  const authority = authorityOf(req) ?? "localhost";
  if (!/^[\w.:[\]-]+$/.test(authority)) throw new TypeError("The request's host is not a host");
  return new URL(`${protocol}://${authority}${pathOf(req)}`);
}

/**
 * The request's headers, each one as often as it arrived (`rawHeaders`), so a repeated header
 * stays repeated. Several `Cookie` headers (HTTP/2 sends one per cookie) are joined with `; `,
 * as one `Cookie` header is written; HTTP/2 pseudo-headers are left out.
 */
export function headersOf(req: ExpressRequest): Headers {
  const headers = new Headers();
  const cookies: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    const value = raw[i + 1] ?? "";
    if (name.startsWith(":")) continue;
    if (name.toLowerCase() === "cookie") cookies.push(value);
    else headers.append(name, value);
  }
  if (cookies.length > 0) headers.set("cookie", cookies.join("; "));
  return headers;
}

/**
 * A signal that aborts when the client goes away before the response is finished: the socket
 * closed under an unfinished response.
 */
export function disconnectSignal(res: ExpressResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * The web `Request` of an Express request, for `Auth()`. A `GET` or `HEAD` has no body; any other
 * method carries the body the client sent, streamed as it arrives (core stops reading past its
 * size limit and answers `413`), or, when a body parser already read it, rebuilt from `req.body`.
 * `url` is the request's {@link urlOf}, when the caller has it already.
 */
export function toWebRequest(
  req: ExpressRequest,
  res: ExpressResponse,
  url: URL = urlOf(req),
): Request {
  const headers = headersOf(req);
  const method = req.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? null : bodyOf(req, res, headers);
  // `duplex: "half"` lets a stream be a request body; the DOM typings do not know it yet.
  const init: RequestInit & { duplex: "half" } = {
    method,
    headers,
    body,
    duplex: "half",
    signal: disconnectSignal(res),
  };
  return new Request(url, init);
}

/**
 * A bodiless `GET` of the request's URL with its headers: what the session helpers hand to the
 * kit, which reads only the URL, the cookies and the host headers.
 */
export function sessionRequestOf(req: ExpressRequest): Request {
  const headers = headersOf(req);
  for (const name of ["content-type", "content-length", "content-encoding", "transfer-encoding"]) {
    headers.delete(name);
  }
  return new Request(urlOf(req), { method: "GET", headers });
}
