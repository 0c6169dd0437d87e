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

// What a browser or password manager should fill in a field that does not say: by its type, and
// for a plain text field by the two names that mean one thing everywhere.
const AUTOCOMPLETE_BY_TYPE: Readonly<Record<string, string>> = {
  password: "current-password",
  email: "email",
  tel: "tel",
  url: "url",
};
const AUTOCOMPLETE_BY_NAME: Readonly<Record<string, string>> = {
  username: "username",
  email: "email",
};

/** The `autocomplete` to add to a field that sets none of its own. */
function defaultAutocomplete(key: string, type: string, input: CredentialInput): string {
  if (Object.keys(input).some((name) => name.toLowerCase() === "autocomplete")) return "";
  const kind = type.toLowerCase();
  const name = key.toLowerCase();
  const byType = Object.hasOwn(AUTOCOMPLETE_BY_TYPE, kind) ? AUTOCOMPLETE_BY_TYPE[kind] : undefined;
  const byName =
    kind === "text" && Object.hasOwn(AUTOCOMPLETE_BY_NAME, name)
      ? AUTOCOMPLETE_BY_NAME[name]
      : undefined;
  const value = byType ?? byName;
  return value ? ` autocomplete="${value}"` : "";
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
      `${passThroughAttributes(input)}${defaultAutocomplete(key, type, input)}${extra}>`,
  ].join("\n");
}
