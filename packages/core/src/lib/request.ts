/**
 * Turns a web `Request` into what an action needs: action, provider, cookies, query and body.
 * Anything malformed is refused here with a 4xx, before any action runs.
 */
import { parseCookies } from "./cookies.js";
import { effectiveUrl, HostMismatch } from "./origin.js";
import type { RouteDeclaration } from "./routes/define.js";
import { routeNamed } from "./routes/index.js";
import type { RequestInternal } from "./types/internal.js";

export type { RequestInternal } from "./types/internal.js";

/** A request refused before any action: the status and stable error value to answer with. */
export class RequestRejection {
  constructor(
    readonly status: 400 | 405 | 413 | 415,
    readonly error:
      | "UnknownAction"
      | "MethodNotAllowed"
      | "BadRequest"
      | "PayloadTooLarge"
      | "InvalidProvider"
      | "UntrustedHost",
    readonly message: string,
    readonly allow?: string,
  ) {}
}

/** Largest request body read, in bytes. Auth forms and WebAuthn responses are far smaller. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The `Allow` value of each route, with and without a provider segment. Built once a route. */
const allowed = new WeakMap<RouteDeclaration, { without: string; with: string }>();

function allowOf(route: RouteDeclaration, withProvider: boolean): string {
  let allow = allowed.get(route);
  if (!allow) {
    const without = route.methods.join(", ");
    allow = { without, with: (route.providerMethods ?? route.methods).join(", ") };
    allowed.set(route, allow);
  }
  return withProvider ? allow.with : allow.without;
}

export { isAuthAction } from "./routes/index.js";

function permits(allow: string, method: string): boolean {
  return (method === "GET" || method === "POST") && allow.includes(method);
}

function splitPath(pathname: string, basePath: string): string[] | undefined {
  if (basePath !== "" && pathname !== basePath && !pathname.startsWith(`${basePath}/`)) {
    return undefined;
  }
  const segments: string[] = [];
  for (const raw of pathname.slice(basePath.length).split("/")) {
    if (raw === "") continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      throw new RequestRejection(400, "BadRequest", "The path has invalid percent-encoding");
    }
    segments.push(segment);
  }
  return segments;
}

async function readBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) {
    throw new RequestRejection(413, "PayloadTooLarge", "The request body is too large");
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      // Cancelling is a courtesy to the source; never wait on it.
      reader.cancel().catch(() => {});
      throw new RequestRejection(413, "PayloadTooLarge", "The request body is too large");
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new RequestRejection(400, "BadRequest", "The request body is not valid UTF-8");
  }
}

/** The media type of a `Content-Type` header: before any `;`, trimmed, lower-cased. */
export function mediaType(header: string | null): string {
  if (!header) return "";
  const semicolon = header.indexOf(";");
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

async function parseBody(
  request: Request,
): Promise<{ fields: Record<string, unknown> | undefined; text: string | null }> {
  const type = mediaType(request.headers.get("content-type"));
  const isJson = type === "application/json";
  const isForm = type === "application/x-www-form-urlencoded";
  if (!isJson && !isForm) {
    request.body?.cancel().catch(() => {});
    return { fields: undefined, text: null };
  }
  const text = await readBody(request);
  return { fields: fieldsOf(text, isForm), text };
}

function fieldsOf(text: string, isForm: boolean): Record<string, unknown> {
  if (text === "") return {};
  if (isForm) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, value] of new URLSearchParams(text)) out[key] = value;
    return out;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RequestRejection(400, "BadRequest", "The request body is not valid JSON");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new RequestRejection(400, "BadRequest", "The request body must be a JSON object");
  }
  return json as Record<string, unknown>;
}

/**
 * Parses a request under `basePath`. Throws a {@link RequestRejection} for an unknown path (400),
 * a known action with the wrong method (405), or a malformed or oversized body (400, 413).
 */
export async function parseRequest(request: Request, basePath: string): Promise<RequestInternal> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new RequestRejection(400, "BadRequest", "The request URL is not valid");
  }
  const segments = splitPath(url.pathname, basePath);
  const parts: (string | undefined)[] = segments ?? [];
  let [name, providerSegment] = parts;
  const rest = parts.slice(2);
  if (name?.includes("/")) {
    // `sessions%2Frevoke`: one segment with a slash in it is no action.
    name = undefined;
  } else if (name !== undefined && providerSegment !== undefined) {
    const joined = `${name}/${providerSegment}`;
    // A route of two segments (`sessions/revoke`) wins over a provider id.
    if (routeNamed(joined)) {
      // One action over two segments; the second is no provider id.
      [name, providerSegment] = [joined, rest.shift()];
    }
  }
  const route = name === undefined ? undefined : routeNamed(name);
  if (!route || rest.length > 0) {
    throw new RequestRejection(400, "UnknownAction", "No action matches this path");
  }
  const action = route.name;
  const providerId = providerSegment === "undefined" ? undefined : providerSegment;
  if (
    (providerId !== undefined && route.provider === "no") ||
    (providerId === undefined && route.provider === "required")
  ) {
    throw new RequestRejection(400, "UnknownAction", "No action matches this path");
  }
  const method = request.method.toUpperCase();
  const allow = allowOf(route, providerId !== undefined);
  if (!permits(allow, method)) {
    throw new RequestRejection(
      405,
      "MethodNotAllowed",
      `${action} does not accept ${method}`,
      allow,
    );
  }
  const query: Record<string, string> = Object.create(null);
  for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
  const parsed: RequestInternal = {
    url,
    method: method as "GET" | "POST",
    action,
    providerId,
    headers: request.headers,
    cookies: parseCookies(request.headers.get("cookie")),
    query,
    body: undefined,
    original: request,
    clientIp: undefined,
  };
  if (method !== "POST") return parsed;
  const { fields, text } = await parseBody(request);
  parsed.body = fields;
  let rebuilt: Request | undefined;
  // Built only when a provider callback asks: most POSTs never need a second copy of the body.
  Object.defineProperty(parsed, "original", {
    enumerable: true,
    get: () => {
      rebuilt ??= new Request(request.url, {
        method: "POST",
        headers: request.headers,
        body: text,
        // A client that goes away still aborts what a provider callback does with the copy.
        signal: request.signal,
      });
      return rebuilt;
    },
  });
  return parsed;
}

/**
 * A request made outside `Auth()` (`getSession`, `getAccessToken`) as the session code reads it:
 * a GET of the session, its URL rebased on the pinned origin. `null`, with one `warn` line, for a
 * request to another host or with a URL that cannot be parsed.
 */
/**
 * What a session check reads of the request being served: its URL and its headers. A framework
 * may give a `Request`, or this much of one (Next.js's `headers()` with the URL, say); it is also
 * what the `clientAddress` hook receives during the check.
 */
export type SessionRequestInput = Pick<Request, "url" | "headers">;

export function sessionRequest(
  request: SessionRequestInput,
  config: {
    url: URL | undefined;
    trustHost: boolean;
    logger: { warn: (code: "client-error", detail?: Error) => void };
  },
): RequestInternal | null {
  let url: URL;
  try {
    url = effectiveUrl(new URL(request.url), request.headers, config.url, config.trustHost);
  } catch (error) {
    if (!(error instanceof HostMismatch) && !(error instanceof TypeError)) throw error;
    const mistake = new Error(
      error instanceof HostMismatch ? error.message : "The request URL is not valid",
    );
    mistake.name = error instanceof HostMismatch ? "UntrustedHost" : "BadRequest";
    config.logger.warn("client-error", mistake);
    return null;
  }
  return {
    url,
    method: "GET",
    action: "session",
    providerId: undefined,
    headers: request.headers,
    cookies: parseCookies(request.headers.get("cookie")),
    query: {},
    body: undefined,
    // A session check hands the request only to the `clientAddress` hook, which reads headers.
    original: request as Request,
    clientIp: undefined,
  };
}

/**
 * Whether the client reads JSON rather than pages: it posted JSON, or it accepts JSON and not
 * HTML (a route with `jsonErrors`, and the features' JSON APIs, answer it so).
 */
export function readsJson(req: Pick<RequestInternal, "headers">): boolean {
  const type = req.headers.get("content-type") ?? "";
  if (type.split(";")[0]?.trim().toLowerCase() === "application/json") return true;
  const accept = req.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}
