/**
 * The extra fields of a sign-up (a name, …): every posted field but the ones the protocol names,
 * validated by the app's Standard Schema. A field the schema does not keep in its output is
 * refused, so a schema that strips unknown keys (zod's default) refuses them too; without a schema
 * every extra field is refused. The output may not set what Gatehouse decides itself.
 */
import type { FieldsSchema } from "./options.js";

/** Posted fields that are the protocol's, not the app's. */
const PROTOCOL = new Set(["email", "password", "csrfToken", "callbackUrl"]);
/** Fields of a user that only Gatehouse sets. */
const RESERVED = new Set(["id", "email", "emailVerified"]);

/** One refused field, as the answer names it. */
export interface FieldIssue {
  /** The field's path (`name`, `address.city`), or `""` for the fields as a whole. */
  path: string;
  message: string;
}

export type FieldsResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; issues: FieldIssue[] };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function pathOf(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined) {
  return (path ?? [])
    .map((part) => String(typeof part === "object" && part !== null ? part.key : part))
    .join(".");
}

/** The extra fields of `body`, validated by `schema`. */
export async function readFields(
  schema: FieldsSchema | undefined,
  body: Record<string, unknown>,
): Promise<FieldsResult> {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!PROTOCOL.has(key)) given[key] = value;
  const names = Object.keys(given);
  if (!schema) {
    if (names.length === 0) return { ok: true, value: {} };
    return { ok: false, issues: names.map((path) => ({ path, message: "Unknown field" })) };
  }
  const result = await schema["~standard"].validate(given);
  if (result.issues) {
    const issues = result.issues.map((issue) => ({
      path: pathOf(issue.path),
      message: String(issue.message),
    }));
    return { ok: false, issues };
  }
  const value = result.value;
  if (!isRecord(value)) {
    return { ok: false, issues: [{ path: "", message: "The fields must be an object" }] };
  }
  const issues: FieldIssue[] = [];
  for (const name of names) {
    if (!Object.hasOwn(value, name)) issues.push({ path: name, message: "Unknown field" });
  }
  for (const name of Object.keys(value)) {
    if (RESERVED.has(name)) issues.push({ path: name, message: "This field cannot be set" });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}
