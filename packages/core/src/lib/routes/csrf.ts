/**
 * GET /csrf: the CSRF token (and its cookie). Loaded with the package: the session route checks
 * the same token from the same small module, and a dynamic import of a module that is also
 * imported statically is a bundler warning in apps.
 */
import { csrf } from "../actions/csrf.js";
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "csrf",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  load: () => csrf,
});
