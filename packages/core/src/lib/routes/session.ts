/**
 * GET /session reads the session; POST with `data` updates it (CSRF-checked). Loaded with the
 * package: it is what a server that renders pages calls on every request.
 */
import { session } from "../actions/session.js";
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "session",
  methods: ["GET", "POST"],
  provider: "no",
  csrf: "post",
  load: () => session,
});
