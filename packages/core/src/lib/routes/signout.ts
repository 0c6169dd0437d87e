/** GET /signout: the sign-out page. POST /signout: ends the session. */
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "signout",
  methods: ["GET", "POST"],
  provider: "no",
  csrf: "post",
  load: async () => (await import("../actions/signout.js")).signOut,
});
