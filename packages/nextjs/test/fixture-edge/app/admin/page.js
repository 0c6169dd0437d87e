import { createElement as h } from "react";

export default function Admin() {
  return h("p", { id: "admin" }, "Admin");
}
