/**
 * The command line's one error: a problem the user can fix, with a message that says how. It
 * ends the command with exit code 1 and the message, without a stack trace.
 */
export class CliError extends Error {
  override readonly name = "CliError";
}
