/**
 * GET /signup/<password provider>: the sign-up page (or a redirect to the app's, `pages.signUp`).
 * POST: a sign-up (JSON or form, CSRF-checked), answered the same whether or not the address
 * already has an account.
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "signup",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./app-pages.js")).withAppPage("signUp", passwordRoute("signup")),
});
