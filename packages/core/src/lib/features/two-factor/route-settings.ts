/** GET /two-factor: see ./account.ts (the code `TwoFactor()` carries). */
import { defineRoute } from "../../routes/define.js";
import { carriedRoute } from "./carried.js";

export default defineRoute({
  name: "two-factor",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  jsonErrors: true,
  load: () => carriedRoute("two-factor"),
});
