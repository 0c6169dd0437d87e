/**
 * GET /reset-password/<password provider>: "check your email" without a token; with the emailed
 * link's token, the form that sets a new password (the GET spends nothing); either, a redirect to
 * the app's page with `pages.resetPassword` (./app-pages.ts). POST (CSRF-checked) spends the
 * token and sets the password.
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "reset-password",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: async () =>
    (await import("./app-pages.js")).withAppPage("resetPassword", passwordRoute("reset-password")),
});
