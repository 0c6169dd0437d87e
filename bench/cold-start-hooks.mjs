/**
 * `node --import ./cold-start-hooks.mjs`: lists every module the process loads, one
 * `cold-start-hooks: loaded <url>` line each on stderr. Used by `cold-start.mjs` to check what a
 * session check loads, in a run of its own: the hook slows loading down, so it never runs in a
 * timed child.
 */
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(
    "export async function load(url, context, next) {" +
      ' process.stderr.write("cold-start-hooks: loaded " + url + "\\n");' +
      " return next(url, context); }",
  )}`,
);
