/** Labelled inputs built from `CredentialInput` descriptions (credentials and passkey forms). */

import type { CredentialInput } from "../types/providers.js";
import { escapeHtml } from "./escape.js";

const ATTRIBUTE_NAME = /^[a-zA-Z][a-zA-Z0-9-]*$/;

// Rendered by the page itself (`label`, `id`, `name`, `type`), able to run script (`on*`),
// or able to move the submission or restyle the page (`form`, `formaction`, `style`).
const RESERVED_ATTRIBUTES = new Set(["label", "id", "name", "type", "form", "formaction", "style"]);

/** The id of the input for field `key` of provider `providerId`. */
export function inputId(key: string, providerId: string): string {
  return `input-${key}-for-${providerId}-provider`;
}

function defaultLabel(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1);
}

/**
 * The extra attributes of a `CredentialInput` as HTML. Only string, finite number and
 * boolean values are kept (`true` gives a bare attribute, `false` none); names must be plain
 * attribute names and never an event handler.
 */
export function passThroughAttributes(input: CredentialInput): string {
  let html = "";
  for (const [name, value] of Object.entries(input)) {
    const lower = name.toLowerCase();
    if (!ATTRIBUTE_NAME.test(name) || lower.startsWith("on") || RESERVED_ATTRIBUTES.has(lower)) {
      continue;
    }
    if (typeof value === "string") html += ` ${lower}="${escapeHtml(value)}"`;
    else if (typeof value === "number" && Number.isFinite(value)) html += ` ${lower}="${value}"`;
    else if (value === true) html += ` ${lower}`;
  }
  return html;
}

/**
 * A `<label>` and its `<input>` for one field. `extra` is raw HTML attribute text added
 * verbatim (the caller's own markers such as `data-form-field`).
 */
export function renderField(
  key: string,
  input: CredentialInput,
  providerId: string,
  extra = "",
): string {
  const id = escapeHtml(inputId(key, providerId));
  const label = typeof input.label === "string" && input.label ? input.label : defaultLabel(key);
  const type = typeof input.type === "string" && input.type ? input.type : "text";
  return [
    `<label for="${id}">${escapeHtml(label)}</label>`,
    `<input id="${id}" name="${escapeHtml(key)}" type="${escapeHtml(type)}"` +
      `${passThroughAttributes(input)}${extra}>`,
  ].join("\n");
}
