/**
 * `gatehouse secret`: a random AUTH_SECRET, printed, or appended to the project's `.env`.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import type { Io } from "./io.js";

/** Options of {@link secretCommand}. */
export interface SecretOptions {
  write?: boolean;
  force?: boolean;
  bytes?: number;
}

/** The smallest number of random bytes `secret` makes. */
export const MIN_SECRET_BYTES = 32;

/** A new secret: `bytes` random bytes, base64url (43 characters for 32 bytes). */
export function newSecret(bytes = MIN_SECRET_BYTES): string {
  return randomBytes(bytes).toString("base64url");
}

const ASSIGNED = /^\s*(export\s+)?AUTH_SECRET\s*=/;

/** Prints a secret, or writes it to `.env` (never printing it then). */
export function secretCommand(options: SecretOptions, io: Io): void {
  const bytes = options.bytes ?? MIN_SECRET_BYTES;
  if (!Number.isInteger(bytes) || bytes < MIN_SECRET_BYTES || bytes > 1024) {
    throw new CliError(`--bytes must be a whole number from ${MIN_SECRET_BYTES} to 1024`);
  }
  const secret = newSecret(bytes);
  if (!options.write) {
    io.out(secret);
    return;
  }
  const file = join(io.cwd, ".env");
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  const lines = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const at = lines.findIndex((line) => ASSIGNED.test(line));
  if (at >= 0 && !options.force) {
    throw new CliError(
      ".env already sets AUTH_SECRET: pass --force to replace it (sessions signed with it end)",
    );
  }
  if (at >= 0) lines[at] = `AUTH_SECRET=${secret}`;
  else lines.push(`AUTH_SECRET=${secret}`);
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  io.err(`${at >= 0 ? "Replaced" : "Added"} AUTH_SECRET in ${file} (${bytes} random bytes).`);
}
