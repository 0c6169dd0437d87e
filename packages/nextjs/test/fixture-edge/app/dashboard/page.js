import { createElement as h } from "react";
import { auth } from "../../auth.js";

export default async function Dashboard() {
  const session = await auth();
  return h("p", { id: "dashboard" }, `Dashboard of ${session?.user?.name ?? "nobody"}`);
}
