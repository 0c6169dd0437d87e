/** POST /two-factor/forget-browser: see ./account.ts and ./trust.ts. */
import { defineRoute } from "../../routes/define.js";
import { carriedRoute } from "./carried.js";

export default defineRoute({
  name: "two-factor/forget-browser",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: () => carriedRoute("two-factor/forget-browser"),
});
