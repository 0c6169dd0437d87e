/**
 * Runs before every request: `/dev/*` exists only in demo mode, and `/middleware-protected`
 * needs a session (checked here, before any rendering; without one, the sign-in page and back).
 */
import { authMiddleware } from "@gatehousejs/solid-start";
import { createMiddleware } from "@solidjs/start/middleware";
import { authConfig } from "./lib/auth";
import { isDemo } from "./lib/env";

export default createMiddleware({
  onRequest: [
    (event) => {
      if (!isDemo() && new URL(event.request.url).pathname.startsWith("/dev/")) {
        return new Response("Not found", {
          status: 404,
          headers: { "content-type": "text/plain" },
        });
      }
    },
    // Signed out: the sign-in page, which comes back to the page asked for.
    authMiddleware(authConfig, { protectedPaths: ["/middleware-protected"], signIn: true }),
  ],
});
