/**
 * The reset code a provider with `resetCode` mails beside the link: 8 characters from an alphabet
 * without look-alikes (40 bits), typed with the address and the new password on the page a request
 * leads to. It is stored like the link's token (./reset-tokens.ts: hashed, bound to the account's
 * state, single-use, same lifetime), and a newer request, a reset or a change ends it too.
 *
 * A code is short, so its tries are counted, each before it is checked, in the rate-limit store
 * (whose `hit` is atomic), per address and reset generation: the fifth wrong try writes a new
 * generation, which ends the code and the link of the same request. Of a burst of guesses, at most
 * five are ever compared.
 */
import type { Context } from "../../context.js";
import { limitKey } from "../rate-limit/keys.js";
import { rateLimitsOf } from "../rate-limit/state.js";
import type { PasswordConfig } from "./options.js";

/** Tries of one code; the last one, if wrong, ends it. */
export const MAX_RESET_CODE_TRIES = 5;

/** Upper-case letters and digits without 0/O and 1/I: 32 characters, 5 bits each. */
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const LENGTH = 8;

/** A fresh code, each character drawn uniformly (32 divides 256: no bias). */
export function generateResetCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(LENGTH));
  return [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]).join("");
}

/** What the user typed, as a code is written (spaces and dashes dropped, upper case), or undefined. */
export function normalizeResetCode(input: unknown): string | undefined {
  if (typeof input !== "string" || input.length > 64) return undefined;
  const text = input
    .normalize("NFKC")
    .replace(/[\s-]+/gu, "")
    .toUpperCase();
  if (text.length !== LENGTH || ![...text].every((c) => ALPHABET.includes(c))) return undefined;
  return text;
}

/** The code as the email shows it: two groups of four. */
export const formatResetCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * Counts one try of the codes of `address` under `generation`, before it is checked: the number
 * of tries with this one. A store that fails counts the try as the last one (a code is refused
 * rather than tried without a count).
 */
export async function countResetCodeTry(
  ctx: Context,
  provider: Pick<PasswordConfig, "id" | "resetMaxAge">,
  address: string,
  generation: string,
  windowMs: number,
): Promise<number> {
  const secret = ctx.config.secrets[0] as string;
  const key = await limitKey(secret, "password.resetCode", [provider.id, address, generation]);
  try {
    const { count } = await rateLimitsOf(ctx.config).store.hit(key, windowMs);
    return count;
  } catch (error) {
    ctx.config.logger.error(error as Error);
    return MAX_RESET_CODE_TRIES + 1;
  }
}
