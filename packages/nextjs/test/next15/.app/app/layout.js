import { createElement as h } from "react";

export default function RootLayout({ children }) {
  return h("html", { lang: "en" }, h("body", null, children));
}
