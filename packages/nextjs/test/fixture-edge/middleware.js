import { auth } from "./auth.js";

// next-auth v5's wrapper form: the verified session is req.auth.
export default auth((req) => {
  if (new URL(req.url).pathname === "/admin" && req.auth?.user?.email !== "admin@example.com") {
    return Response.redirect(new URL("/", req.url));
  }
});

export const config = { matcher: ["/((?!api|_next/static|_next/image|favicon.ico).*)"] };
