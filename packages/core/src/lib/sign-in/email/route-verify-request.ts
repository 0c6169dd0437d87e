/** GET /verify-request: "check your email", after an email sign-in was asked for. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "verify-request",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  load: async () => (await import("./verify-request.js")).verifyRequestPage,
});
