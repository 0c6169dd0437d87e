/** POST /two-factor/confirm: see ./account.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "two-factor/confirm",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./account.js")).confirm,
});
