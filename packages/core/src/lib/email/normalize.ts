/**
 * The default normalisation of an email address typed into a sign-in form.
 */

/** Thrown by a normaliser for an address it refuses; the user sees the sign-in page again. */
export class InvalidEmailAddress extends Error {}

const localPart = /^[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~.-]+$/u;
const domainPart = /^[\p{L}\p{M}\p{N}.-]+$/u;

/**
 * Unicode NFKC (so look-alike characters such as a full-width `＠` become what they resemble
 * before anything is checked), trimmed, lowercased; then exactly one `@` with a non-empty local
 * part and domain, no whitespace, no quotes anywhere, no commas in the domain, at most 320
 * characters. Throws `InvalidEmailAddress` otherwise.
 */
export function normalizeEmail(input: string): string {
  if (typeof input !== "string") throw new InvalidEmailAddress("The email address is not text");
  const address = input.normalize("NFKC").trim().toLowerCase();
  if (address.length === 0 || address.length > 320) {
    throw new InvalidEmailAddress("The email address is empty or too long");
  }
  if (/[\s"]/.test(address)) {
    throw new InvalidEmailAddress("The email address contains whitespace or quotes");
  }
  const parts = address.split("@");
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new InvalidEmailAddress("The email address must have exactly one @ between two parts");
  }
  const [local, domain] = parts as [string, string];
  if (
    domain.includes(",") ||
    domain.startsWith(".") ||
    domain.endsWith(".") ||
    domain.includes("..")
  ) {
    throw new InvalidEmailAddress("The email address has an invalid domain");
  }
  // Only what an addr-spec may hold (RFC 5322 atext, plus letters and digits of any script):
  // no angle brackets, comments, groups, list separators or control characters that mail
  // software would read as a different mailbox than the one stored.
  if (!localPart.test(local) || !domainPart.test(domain)) {
    throw new InvalidEmailAddress("The email address has characters an address cannot have");
  }
  return address;
}
