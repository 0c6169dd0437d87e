/**
 * The password policy of password accounts (docs/passwords.md), after NIST SP 800-63B revision 4,
 * §3.1.1.2: a minimum and a maximum length counted in Unicode code points after NFKC, a list of
 * common and context-specific passwords, an optional breached-password check, and no composition
 * rules.
 */
import { MAX_PASSWORD_LENGTH } from "../../crypto/password.js";
import { consoleLogger } from "../../logger.js";
import type { LoggerInstance } from "../../types/config.js";
import type { BreachCheck } from "./breach.js";

declare module "../../types/config.js" {
  interface WarningCodes {
    /**
     * The password policy's breached-password check could not answer (network error, timeout, an
     * answer it cannot use); the detail says whether the password was accepted or refused.
     */
    "password-breach-check-unavailable": true;
  }
}

/** The options of {@link resolvePasswordPolicy}. */
export interface PasswordPolicyOptions {
  /**
   * The fewest characters (Unicode code points, after NFKC) a password may have. Default 15, what
   * NIST SP 800-63B-4 requires of a password that is the only factor. An app where every password
   * account also needs a second factor may lower it to 8, NIST's minimum then; lower is refused.
   */
  minLength?: number;
  /**
   * The most characters a password may have. Default 128. NIST asks that at least 64 be allowed,
   * so a lower maximum is refused; so is one above 1,024, the most any password is hashed with.
   */
  maxLength?: number;
  /**
   * The offline list of common passwords (`@zxcvbn-ts/language-common`'s 49,000), loaded on the
   * first check that needs it. Default `true`; `false` turns it off (the context words, the extra
   * list and the breach check still apply).
   */
  blocklist?: boolean;
  /** More passwords to refuse: the app's name in other spellings, its domain, its slogans, … */
  extraBlocklist?: Iterable<string>;
  /**
   * A check against breached passwords, run last, only for a password every other rule accepted:
   * `pwnedPasswordsRange` (./breach.ts) or the app's own. Off by default.
   */
  breachCheck?: BreachCheck;
}

/** A policy as {@link resolvePasswordPolicy} returns it: every option validated and defaulted. */
export interface PasswordPolicy {
  readonly minLength: number;
  readonly maxLength: number;
  readonly blocklist: boolean;
  /** The extra words, normalised as they are compared (NFKC, lowercase). */
  readonly extraBlocklist: ReadonlySet<string>;
  readonly breachCheck: BreachCheck | undefined;
}

/**
 * What {@link checkPassword} knows about the account, and where it writes its warning. A
 * password equal to one of these words (case-insensitively, after NFKC, ignoring the words'
 * surrounding spaces) is refused; parts of them, or them plus a suffix, are not (the length rule
 * already makes such passwords long).
 */
export interface PasswordCheckContext {
  /** The address; the password may be neither it nor its local part (before the last `@`). */
  email?: string | null;
  name?: string | null;
  username?: string | null;
  /** The app's or the site's name. */
  appName?: string;
  /**
   * Where the one warning line goes when the breach check cannot answer
   * (`password-breach-check-unavailable`): the configuration's logger. Default: the console.
   */
  logger?: Pick<LoggerInstance, "warn">;
}

/** Why a password was refused. */
export type PasswordPolicyError =
  | "PasswordTooShort"
  | "PasswordTooLong"
  | "PasswordTooCommon"
  /** Not a string, or a string that holds a lone surrogate (which cannot be encoded). */
  | "PasswordInvalid";

/** What {@link checkPassword} answers. `message` says what to change and never holds the password. */
export type PasswordCheckResult =
  | {
      ok: true;
      /** The password normalised to NFKC: what gets hashed. */
      password: string;
    }
  | { ok: false; error: PasswordPolicyError; message: string };

const DEFAULT_MIN_LENGTH = 15;
const LOWEST_MIN_LENGTH = 8;
const DEFAULT_MAX_LENGTH = 128;
const LOWEST_MAX_LENGTH = 64;
const KNOWN = new Set(["minLength", "maxLength", "blocklist", "extraBlocklist", "breachCheck"]);
const LONE_SURROGATE = /\p{Cs}/u;

const TOO_COMMON =
  "Choose a less common password: this one appears in lists of passwords attackers try first.";

function invalid(option: string, expected: string): TypeError {
  return new TypeError(`Password policy: \`${option}\` must be ${expected}`);
}

/** A word as passwords are compared: NFKC, then lowercase. */
function comparable(word: string): string {
  return word.normalize("NFKC").toLowerCase();
}

function lengthOption(value: unknown, option: string, fallback: number, lowest: number): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" ||
    !Number.isSafeInteger(value) ||
    value < lowest ||
    value > MAX_PASSWORD_LENGTH
  ) {
    throw invalid(option, `a whole number from ${lowest} to ${MAX_PASSWORD_LENGTH}`);
  }
  return value;
}

function extraWords(value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set();
  const iterable =
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] === "function";
  if (!iterable) throw invalid("extraBlocklist", "an iterable of strings (an array, a Set)");
  const words = new Set<string>();
  for (const word of value as Iterable<unknown>) {
    if (typeof word !== "string") throw invalid("extraBlocklist", "an iterable of strings");
    if (word.trim() !== "") words.add(comparable(word));
  }
  return words;
}

/**
 * Validates password policy options and fills in the defaults. The policy follows NIST SP
 * 800-63B revision 4 (§3.1.1.2):
 *
 * - **at least 15 characters** by default, what NIST requires of a password used alone; an app
 *   whose password accounts always need a second factor may set `minLength` down to 8;
 * - **at most 128** by default, and never a maximum under 64: long passphrases are welcome;
 * - characters are **Unicode code points after NFKC normalisation**, so an emoji counts once and
 *   the same characters typed on different keyboards are the same password;
 * - **no composition rules, ever**: nothing asks for a digit, a capital or a symbol, which NIST
 *   forbids because they make passwords harder to remember without making them harder to guess;
 * - refused: **common passwords** (an offline list, on by default), **context words** (the
 *   account's address, its local part, its name, its username, the app's name), the app's own
 *   `extraBlocklist`, and, with `breachCheck`, **breached passwords**.
 *
 * @throws TypeError, naming the option, when an option is malformed or outside NIST's bounds.
 *
 * @example
 * ```ts
 * // Every password account also has a second factor, and breached passwords are refused.
 * const policy = resolvePasswordPolicy({ minLength: 8, breachCheck: pwnedPasswordsRange() });
 * ```
 */
export function resolvePasswordPolicy(options?: PasswordPolicyOptions): PasswordPolicy {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError("Password policy: the options must be an object");
  }
  const given = options ?? {};
  for (const key of Object.keys(given)) {
    if (!KNOWN.has(key)) throw new TypeError(`Password policy: unknown option \`${key}\``);
  }
  const minLength = lengthOption(
    given.minLength,
    "minLength",
    DEFAULT_MIN_LENGTH,
    LOWEST_MIN_LENGTH,
  );
  const maxLength = lengthOption(
    given.maxLength,
    "maxLength",
    DEFAULT_MAX_LENGTH,
    LOWEST_MAX_LENGTH,
  );
  if (maxLength < minLength) throw invalid("maxLength", `at least minLength (${minLength})`);
  const blocklist = given.blocklist ?? true;
  if (typeof blocklist !== "boolean") throw invalid("blocklist", "a boolean");
  const breachCheck = given.breachCheck;
  if (breachCheck !== undefined && typeof breachCheck !== "function") {
    throw invalid("breachCheck", "a function (password) => Promise<boolean>");
  }
  return Object.freeze({
    minLength,
    maxLength,
    blocklist,
    extraBlocklist: extraWords(given.extraBlocklist),
    breachCheck,
  });
}

let commonPasswords: Promise<ReadonlySet<string>> | undefined;

/**
 * The offline list, loaded with the first check that needs it and kept (about 50 ms and a few
 * MB): importing Gatehouse never loads it.
 */
function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import("@zxcvbn-ts/language-common").then(
    ({ dictionary }) => new Set(dictionary["passwords-common"].map(comparable)),
    (error: unknown) => {
      commonPasswords = undefined;
      throw error;
    },
  );
  return commonPasswords;
}

function contextWords(context: PasswordCheckContext | undefined): string[] {
  if (!context) return [];
  const words: string[] = [];
  const add = (word: unknown) => {
    if (typeof word === "string" && word.trim() !== "") words.push(comparable(word.trim()));
  };
  add(context.email);
  if (typeof context.email === "string") {
    const at = context.email.lastIndexOf("@");
    if (at > 0) add(context.email.slice(0, at));
  }
  add(context.name);
  add(context.username);
  add(context.appName);
  return words;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Runs the breach check; a check that cannot answer is logged once and counts as not breached. */
async function breached(
  check: BreachCheck,
  password: string,
  logger: Pick<LoggerInstance, "warn">,
): Promise<boolean> {
  let warned = false;
  const unavailable = (reason: Error) => {
    if (warned) return;
    warned = true;
    logger.warn("password-breach-check-unavailable", reason);
  };
  try {
    return (await check(password, { unavailable })) === true;
  } catch (error) {
    // Only the error's name: its message is the app's and might quote what it was given.
    const name = error instanceof Error ? error.name : typeof error;
    unavailable(
      new Error(
        `The breached-password check failed (${name}); the password was accepted without it`,
      ),
    );
    return false;
  }
}

/**
 * Checks a new password (at sign-up, reset or change) against a policy from
 * {@link resolvePasswordPolicy}. In order: it must be a string of at most 1,024 UTF-16 code units
 * without a lone surrogate (what `hashPassword` accepts); it is normalised to NFKC; its length in
 * code points must be within `minLength` and `maxLength` (and the normalised string within the
 * 1,024 units `hashPassword` takes); it must not be a context word, an extra word or a common
 * password (compared case-insensitively); last, `breachCheck`, if any, must not know it.
 *
 * Common, context and breached passwords get the same error and message: a refusal says what to
 * change, never which list matched. No message holds the password.
 *
 * When the breach check cannot answer, one warning line (`password-breach-check-unavailable`)
 * goes to `context.logger`, and the password is accepted or refused as the check decided.
 *
 * @returns the NFKC form to hash when the password is accepted; the reason and a message for the
 *   user otherwise.
 *
 * @example
 * ```ts
 * const checked = await checkPassword(form.password, policy, { email: form.email, logger });
 * if (!checked.ok) return showError(checked.message);
 * const hash = await hashPassword(checked.password);
 * ```
 */
export async function checkPassword(
  password: unknown,
  policy: PasswordPolicy,
  context?: PasswordCheckContext,
): Promise<PasswordCheckResult> {
  const { minLength, maxLength } = policy;
  const tooShort = {
    ok: false,
    error: "PasswordTooShort",
    message: `Use at least ${minLength} characters: a few unrelated words make a long password that is easy to remember.`,
  } as const;
  const tooLong = {
    ok: false,
    error: "PasswordTooLong",
    message: `Use at most ${maxLength} characters.`,
  } as const;
  if (password === undefined || password === null) return tooShort;
  if (typeof password !== "string" || LONE_SURROGATE.test(password)) {
    return {
      ok: false,
      error: "PasswordInvalid",
      message: "Type the password again: it holds a character that cannot be stored.",
    };
  }
  if (password.length > MAX_PASSWORD_LENGTH) return tooLong;
  const normalised = password.normalize("NFKC");
  const length = codePoints(normalised);
  if (length < minLength) return tooShort;
  if (length > maxLength || normalised.length > MAX_PASSWORD_LENGTH) return tooLong;

  const tooCommon = { ok: false, error: "PasswordTooCommon", message: TOO_COMMON } as const;
  const key = comparable(normalised);
  if (contextWords(context).includes(key) || policy.extraBlocklist.has(key)) return tooCommon;
  if (policy.blocklist && (await loadCommonPasswords()).has(key)) return tooCommon;
  if (policy.breachCheck) {
    const logger = context?.logger ?? consoleLogger(false);
    if (await breached(policy.breachCheck, normalised, logger)) return tooCommon;
  }
  return { ok: true, password: normalised };
}
