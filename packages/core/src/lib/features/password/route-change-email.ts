/**
 * GET /change-email/<password provider>: the signed-in user's change-email page, or, with the
 * emailed link's token, the page that confirms the change. POST (JSON or form, CSRF-checked):
 * the new address (and the current password), or the link's token.
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "change-email",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: () => passwordRoute("change-email"),
});
