/**
 * GET /verify-email/<password provider>: "check your email" without a token; with the emailed
 * link's token, the page that confirms the address (in the browser that signed up) or lets the
 * address's owner choose their own password (anywhere else). POST (CSRF-checked) acts.
 */
import { defineRoute } from "../../routes/define.js";
import { passwordRoute } from "./route-answer.js";

export default defineRoute({
  name: "verify-email",
  methods: ["GET", "POST"],
  provider: "required",
  providerTypes: ["password"],
  csrf: "post",
  jsonErrors: true,
  load: () => passwordRoute("verify-email"),
});
