/**
 * The proxy (Next.js 16's middleware, on Node.js): every page request passes through `auth`,
 * which verifies the session (its JWE and the revocation store), renews it when due, and sends
 * a signed-out visitor of a protected path (`protect` in auth.ts) to the sign-in page and back.
 */
export { auth as proxy } from "./auth";

// The auth route and Next's own files need no check.
export const config = { matcher: ["/((?!api|_next/static|_next/image|favicon.ico|logo.svg).*)"] };
