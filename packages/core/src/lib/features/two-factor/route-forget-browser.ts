/** POST /two-factor/forget-browser: see ./account.ts and ./trust.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "two-factor/forget-browser",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./account.js")).forgetBrowser,
});
