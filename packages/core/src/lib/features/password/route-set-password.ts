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
  csrf: "post",
  load: () => passwordRoute("set-password"),
});
