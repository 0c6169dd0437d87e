/** GET /two-factor: see ./account.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "two-factor",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  jsonErrors: true,
  load: async () => (await import("./account.js")).settings,
});
