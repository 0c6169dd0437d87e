/**
 * What a command touches outside itself: its output streams, its folder and its environment,
 * given (not global) so each command reads as a function of them.
 */
export interface Io {
  /** Writes a line to standard output (the command's product: a secret, a schema, SQL). */
  out(line: string): void;
  /** Writes a line to standard error (what the command did, and why). */
  err(line: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The process's own. */
export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  env: process.env,
};
