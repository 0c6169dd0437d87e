import { createElement as h } from "react";
import { auth } from "../auth.js";

// A Server Component reading the session.
export default async function Home() {
  const session = await auth();
  return h("p", { id: "who" }, session?.user ? `Signed in as ${session.user.email}` : "Signed out");
}
