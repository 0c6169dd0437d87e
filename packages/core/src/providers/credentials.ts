/**
 * The credentials provider: sign-in by a function that checks what the user typed.
 * @module
 */
import type { CredentialInput, CredentialsConfig } from "../lib/types/providers.js";

export type { CredentialInput, CredentialsConfig } from "../lib/types/providers.js";

/** What {@link Credentials} takes: `authorize` and the form fields, the rest optional. */
export type CredentialsOptions<Fields extends Record<string, CredentialInput>> = Partial<
  Omit<CredentialsConfig<Fields>, "type" | "authorize">
> &
  Pick<CredentialsConfig<Fields>, "authorize">;

/**
 * A credentials provider. `authorize` receives only the declared fields and the request; return
 * a user, `null` to refuse, or throw a `CredentialsSignin` subclass with your own `code`.
 *
 * JWT sessions work out of the box; with database sessions the returned user must exist in the
 * adapter.
 *
 * @example
 * ```ts
 * Credentials({
 *   credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
 *   async authorize({ email, password }) {
 *     const user = await findUser(String(email));
 *     return user && (await verify(user.hash, String(password))) ? user : null;
 *   },
 * })
 * ```
 */
export default function Credentials<
  Fields extends Record<string, CredentialInput> = Record<string, CredentialInput>,
>(options: CredentialsOptions<Fields>): CredentialsConfig<Fields> {
  return {
    id: "credentials",
    name: "Credentials",
    credentials: {} as Fields,
    ...options,
    type: "credentials",
  };
}
