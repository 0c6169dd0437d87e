import { createElement as h } from "react";
import { auth, signOut } from "../../auth.js";

async function leave() {
  "use server";
  await signOut({ redirectTo: "/" });
}

// Reached only through the middleware's check; the page reads the session again itself.
export default async function Protected() {
  const session = await auth();
  return h(
    "main",
    null,
    h("p", { id: "protected" }, `Protected page of ${session?.user?.name ?? "nobody"}`),
    h("form", { action: leave }, h("button", { type: "submit", id: "sign-out" }, "Sign out")),
  );
}
