/** POST /two-factor/confirm: see ./account.ts (the code `TwoFactor()` carries). */
import { defineRoute } from "../../routes/define.js";
import { carriedRoute } from "./carried.js";

export default defineRoute({
  name: "two-factor/confirm",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: () => carriedRoute("two-factor/confirm"),
});
