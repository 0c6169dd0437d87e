/** GET and POST /two-factor/enroll: see ./account.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "two-factor/enroll",
  methods: ["GET", "POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./account.js")).enroll,
});
