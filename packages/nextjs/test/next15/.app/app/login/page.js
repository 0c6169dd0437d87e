import { CredentialsSignin } from "@gatehousejs/nextjs";
import { redirect } from "next/navigation";
import { createElement as h } from "react";
import { signIn } from "../../auth.js";

async function login(formData) {
  "use server";
  try {
    await signIn("credentials", formData);
  } catch (error) {
    if (error instanceof CredentialsSignin) redirect("/login?error=CredentialsSignin");
    throw error;
  }
}

// A sign-in form on a Server Action.
export default async function Login({ searchParams }) {
  const { error } = await searchParams;
  return h(
    "main",
    null,
    error ? h("p", { id: "error" }, `Refused: ${error}`) : null,
    h(
      "form",
      { action: login },
      h("input", { type: "hidden", name: "redirectTo", value: "/protected" }),
      h("input", { name: "username", id: "username" }),
      h("input", { name: "password", type: "password", id: "password" }),
      h("button", { type: "submit", id: "sign-in" }, "Sign in"),
    ),
  );
}
