#!/usr/bin/env node
/**
 * The `gatehouse` binary: runs the program on the process's arguments, and ends the process with
 * its exit code (a configuration file may open connections that would keep it alive).
 */
import { processIo } from "./commands/io.js";
import { CliError } from "./errors.js";
import { createProgram } from "./program.js";

let code = 0;
const program = createProgram(processIo, (c) => {
  code = c;
});

function finish(exit: number): void {
  // Exit once both streams have flushed, so nothing written is lost when piped.
  process.stdout.write("", () => process.stderr.write("", () => process.exit(exit)));
}

try {
  await program.parseAsync(process.argv);
  finish(code);
} catch (error) {
  if (error instanceof CliError) {
    processIo.err(`gatehouse: ${error.message}`);
  } else {
    processIo.err(`gatehouse: unexpected error: ${String((error as Error)?.stack ?? error)}`);
  }
  finish(1);
}
