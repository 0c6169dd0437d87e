/** GET /signin: the sign-in page. POST /signin/<provider>: starts that provider's sign-in. */
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "signin",
  methods: ["GET", "POST"],
  provider: "optional",
  providerMethods: ["POST"],
  csrf: "post",
  load: async () => (await import("../actions/signin.js")).signIn,
});
