/**
 * The bench's one failure: a check that did not hold. `run.mjs` turns it into exit code 1, so an
 * error path can never be timed and reported as speed.
 */
export class CheckFailed extends Error {}

export function check(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

/**
 * A logger for both libraries that keeps every error it is given. A library that hits an error
 * while being timed answers fast and wrongly, so each scenario asserts afterwards that none came.
 */
export function recordingLogger() {
  const errors = [];
  return {
    errors,
    logger: {
      error: (error) => errors.push(error),
      warn: () => {},
      debug: () => {},
    },
    /** Throws if an error was logged since the last call, then forgets them. */
    assertClean(who) {
      const first = errors[0];
      const count = errors.length;
      errors.length = 0;
      const what = first instanceof Error ? `${first.name}: ${first.message}` : String(first);
      check(count === 0, `${who}: ${count} error(s) logged, the first: ${what}`);
    },
  };
}
