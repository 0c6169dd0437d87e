/**
 * Reads failures back from a recording logger, whichever level they went to: server faults are
 * logged with `error(error)`, client mistakes with `warn("client-error", error)`.
 */
import { expect } from "vitest";
import type { recordingLogger } from "../helpers.js";

type RecordingLogger = ReturnType<typeof recordingLogger>;

/** Every logged failure, as `{ level, type, message }`. */
export function loggedFailures(logger: RecordingLogger) {
  const errors = logger.error.mock.calls.map(([error]) => ({ level: "error", error }));
  const warnings = logger.warn.mock.calls.map(([, error]) => ({ level: "warn", error }));
  return [...errors, ...warnings]
    .filter((entry): entry is { level: string; error: Error } => entry.error instanceof Error)
    .map(({ level, error }) => ({
      level,
      type: (error as { type?: string }).type ?? error.name,
      message: error.message,
    }));
}

/** Asserts exactly one logged failure, of `type` at `level`, whose message matches `text`. */
export function expectOneFailure(
  logger: RecordingLogger,
  type: string,
  options: { level?: "error" | "warn"; text?: RegExp } = {},
) {
  const logged = loggedFailures(logger);
  expect(logged, JSON.stringify(logged)).toHaveLength(1);
  expect(logged[0]).toMatchObject({ type, ...(options.level ? { level: options.level } : {}) });
  if (options.text) expect(logged[0]!.message).toMatch(options.text);
  return logged[0]!;
}
