import { requireSession } from "@gatehousejs/solid-start";
import { createAsync, query } from "@solidjs/router";
import { authConfig } from "../lib/auth";

/** Protected by requireSession in its query: signed out, to the sign-in page and back. */
const vaultQuery = query(async () => {
  "use server";
  const session = await requireSession(authConfig, { signIn: true });
  return session.user.name ?? "";
}, "vault");

export const route = { preload: () => vaultQuery() };

export default function Vault() {
  const name = createAsync(() => vaultQuery(), { deferStream: true });
  return <p>VAULT-OF [{name()}]</p>;
}
