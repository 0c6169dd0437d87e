/**
 * GET /forgot-password/<password provider>: the page that asks for the address (or a redirect to
 * the app's, `pages.forgotPassword`). POST (JSON or form, CSRF-checked): a reset request,
 * answered the same for every address.
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "forgot-password",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: async () =>
    (await import("./app-pages.js")).withAppPage(
      "forgotPassword",
      passwordRoute("forgot-password"),
    ),
});
