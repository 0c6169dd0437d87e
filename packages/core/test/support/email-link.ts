/**
 * Following an emailed sign-in link as a browser does: the `GET` answers the confirmation page
 * (scanner-safe links, the default), and its one button posts the form it holds.
 */
import type { AuthConfig } from "@gatehousejs/core/types";
import { type Jar, ORIGIN, send } from "../helpers.js";

/** The `action` and the hidden fields of the first form of an HTML page. */
export function formOf(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error("The page has no form");
  const unescapeHtml = (text: string) =>
    text
      .replaceAll("&quot;", '"')
      .replaceAll("&#39;", "'")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(input[1]!)] = unescapeHtml(input[2]!);
  }
  return { action: unescapeHtml(form[1]!), fields };
}

/**
 * Opens `link` in `jar` and, when it answers the confirmation page, presses its button. Returns
 * the last response: the sign-in redirect, or the `GET`'s own answer when it was no page.
 */
export async function followLink(config: AuthConfig, jar: Jar, link: URL): Promise<Response> {
  const opened = await send(config, jar, link.pathname + link.search, { origin: link.origin });
  if (opened.status !== 200 || !opened.headers.get("content-type")?.startsWith("text/html")) {
    return opened;
  }
  const { action, fields } = formOf(await opened.text());
  const target = new URL(action, link.origin ?? ORIGIN);
  return send(config, jar, target.pathname + target.search, {
    form: fields,
    origin: target.origin,
  });
}
