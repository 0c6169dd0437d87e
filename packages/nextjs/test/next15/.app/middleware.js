// Next.js 15's middleware: on the edge runtime (the only runtime Next.js 15.5 gives a
// middleware unless `experimental.nodeMiddleware` is on, which this app does not set).
export { auth as default } from "./auth.js";

export const config = { matcher: ["/((?!api|_next/static|_next/image|favicon.ico).*)"] };
