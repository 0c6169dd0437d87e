import { headers } from "next/headers";

/**
 * The request being served, as a web `Request` with its cookies and host headers, for the core
 * functions that read the session from one (`getSessionInfo`, `getAccessToken`). A Server
 * Component has no `Request` of its own: Next.js gives it the headers only.
 */
export async function pageRequest(path: string): Promise<Request> {
  const own = await headers();
  const host = own.get("x-forwarded-host") ?? own.get("host") ?? "localhost";
  const protocol = own.get("x-forwarded-proto") ?? "http";
  return new Request(new URL(path, `${protocol}://${host}`), { headers: new Headers(own) });
}
