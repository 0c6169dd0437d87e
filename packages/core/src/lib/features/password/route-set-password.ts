/**
 * GET /set-password/<password provider>: the signed-in user's page. POST (JSON or form, CSRF-checked):
 * the new password (./set-password.ts).
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "set-password",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: () => passwordRoute("set-password"),
});
