/**
 * The logger: `error`, `warn` and `debug`, each replaceable. Every failure is one line; details
 * that could carry secrets never reach it, because error messages never contain them.
 */
import { AuthError } from "./errors.js";
import type { LoggerInstance, WarningCode } from "./types/config.js";

function describe(error: Error): string {
  const type = error instanceof AuthError ? error.type : error.name;
  const cause =
    error.cause instanceof Error ? ` (cause: ${error.cause.name}: ${error.cause.message})` : "";
  return `${type}: ${error.message}${cause}`;
}

/** The built-in logger. `debug` adds stacks to errors and turns on debug lines. */
export function consoleLogger(debug: boolean): LoggerInstance {
  return {
    error(error) {
      console.error(`[gatehouse][error] ${describe(error)}`);
      if (debug && error.stack) console.error(error.stack);
    },
    warn(code: WarningCode, detail?: Error) {
      console.warn(`[gatehouse][warn][${code}]${detail ? ` ${describe(detail)}` : ""}`);
    },
    debug(message, metadata) {
      if (debug) console.debug(`[gatehouse][debug] ${message}`, metadata ?? "");
    },
  };
}

/**
 * The user's logger with the built-in one behind each missing level. With a user logger the
 * `debug` flag is ignored: the user's `debug` decides.
 */
export function resolveLogger(
  logger: Partial<LoggerInstance> | undefined,
  debug: boolean | undefined,
): LoggerInstance {
  const fallback = consoleLogger(logger ? false : !!debug);
  if (!logger) return fallback;
  const safe =
    <A extends unknown[]>(fn: ((...args: A) => void) | undefined, alt: (...args: A) => void) =>
    (...args: A) => {
      try {
        (fn ?? alt)(...args);
      } catch {
        // A logger that throws must not turn a handled error into a 500.
      }
    };
  return {
    error: safe(logger.error?.bind(logger), fallback.error),
    warn: safe(logger.warn?.bind(logger), fallback.warn),
    debug: safe(logger.debug?.bind(logger), fallback.debug),
  };
}
