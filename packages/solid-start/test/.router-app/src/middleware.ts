import { authMiddleware } from "@gatehousejs/solid-start";
import { createMiddleware } from "@solidjs/start/middleware";
import { authConfig } from "./lib/auth";

export default createMiddleware({
  onRequest: [authMiddleware(authConfig, { protectedPaths: ["/admin/*"], signIn: true })],
});
