/**
 * `node --import ./cold-start-hooks.mjs`: lists every module the process loads, one
 * `cold-start-hooks: loaded <url>` line each on stderr. Used by `cold-start.mjs` to check what a
 * session check loads, in a run of its own: the hook slows loading down, so it never runs in a
 * timed child.
 */
import { register } from "node:module";

// The hook runs on the loader's own thread, whose `process.stderr` reaches fd 2 later, through
// the main thread; `writeSync` to fd 2 keeps the lines in order with the child's own marker line.
register(
  `data:text/javascript,${encodeURIComponent(
    'import { writeSync } from "node:fs";' +
      "export async function load(url, context, next) {" +
      ' writeSync(2, "cold-start-hooks: loaded " + url + "\\n");' +
      " return next(url, context); }",
  )}`,
);
