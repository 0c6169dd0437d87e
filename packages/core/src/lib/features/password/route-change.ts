/**
 * GET /change-password/<password provider>: the signed-in user's change-password page. POST (JSON
 * or form, CSRF-checked): the current password and a new one.
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "change-password",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: () => passwordRoute("change-password"),
});
