/** GET and POST /two-factor/challenge: see ./challenge.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "two-factor/challenge",
  methods: ["GET", "POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./challenge.js")).challenge,
});
