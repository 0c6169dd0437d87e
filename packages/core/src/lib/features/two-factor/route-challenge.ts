/** GET and POST /two-factor/challenge: see ./challenge.ts (the code `TwoFactor()` carries). */
import { defineRoute } from "../../routes/define.js";
import { carriedRoute } from "./carried.js";

export default defineRoute({
  name: "two-factor/challenge",
  methods: ["GET", "POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: () => carriedRoute("two-factor/challenge"),
});
