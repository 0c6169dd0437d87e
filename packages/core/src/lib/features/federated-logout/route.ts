/**
 * POST /backchannel-logout/<provider>: OpenID Connect Back-Channel Logout 1.0. Server to server:
 * the provider's signed logout token is the proof, there is no CSRF token.
 */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "backchannel-logout",
  methods: ["POST"],
  provider: "required",
  csrf: "none",
  load: async () => (await import("./backchannel-logout.js")).backchannelLogout,
});
