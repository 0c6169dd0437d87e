/**
 * The rules the provider imitation enforces, as pure functions over parsed requests: the
 * authorization request's parameters and the token request's client authentication.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AuthorizeRules, ClientCredentials } from "./provider-imitation-types.js";

/** An OAuth error the authorize step answers with (RFC 6749 4.1.2.1). */
export interface AuthorizeProblem {
  error: string;
  description: string;
}

/** What is wrong with an authorization request under `rules`, or undefined. */
export function authorizeProblem<U>(
  q: URLSearchParams,
  rules: AuthorizeRules<U>,
  responseMode: string,
  isOidc: boolean,
): AuthorizeProblem | undefined {
  const invalid = (description: string) => ({ error: "invalid_request", description });
  if (q.get("response_type") !== "code") {
    return { error: "unsupported_response_type", description: "response_type must be code" };
  }
  if (responseMode !== (rules.responseMode ?? "query")) {
    return invalid(`response_mode must be ${rules.responseMode ?? "query"}, got ${responseMode}`);
  }
  if (rules.state && !q.get("state")) return invalid("state is required");
  const challenge = q.get("code_challenge");
  const method = q.get("code_challenge_method");
  if (rules.pkce === "required" && !challenge) return invalid("code_challenge is required");
  if (challenge && method !== "S256") return invalid("code_challenge_method must be S256");
  if (challenge && !/^[\w-]{43}$/.test(challenge)) return invalid("code_challenge is malformed");
  if ((rules.nonce ?? isOidc) && !q.get("nonce")) return invalid("nonce is required");
  const scope = q.get("scope");
  if ((rules.scope?.required ?? true) && !scope) return invalid("scope is required");
  const scopes = splitScope(scope ?? "", rules.scope?.separator);
  const unknown = rules.scope?.known && scopes.filter((s) => !rules.scope!.known!.includes(s));
  if (unknown?.length) return { error: "invalid_scope", description: `unknown scope ${unknown}` };
  const missing = rules.scope?.include?.filter((s) => !scopes.includes(s));
  if (missing?.length) return { error: "invalid_scope", description: `scope needs ${missing}` };
  const custom = rules.check?.(q);
  return custom ? invalid(custom) : undefined;
}

/** Why the token request's client authentication fails under `method`, or undefined. */
export function clientAuthProblem(
  method: "client_secret_basic" | "client_secret_post" | "none",
  { form, basic }: ClientCredentials,
  client: { clientId: string; clientSecret: string },
): string | undefined {
  if (method === "client_secret_basic") {
    if (form.has("client_secret")) return "client_secret must not be in the body";
    if (!basic) return "Basic authentication is required";
    if (basic.id !== client.clientId || basic.secret !== client.clientSecret) {
      return "bad client credentials";
    }
    return undefined;
  }
  if (basic) return `${method} does not take an Authorization header`;
  if (form.get("client_id") !== client.clientId) return "client_id is missing or unknown";
  if (method === "client_secret_post" && form.get("client_secret") !== client.clientSecret) {
    return "client_secret is missing or wrong";
  }
  if (method === "none" && form.has("client_secret")) return "a public client sends no secret";
  return undefined;
}

export function splitScope(scope: string, separator: " " | "," = " "): string[] {
  return scope.split(separator === "," ? /[ ,]+/ : / +/).filter(Boolean);
}

export function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, "%20"));
  try {
    return {
      id: formDecode(decoded.slice(0, colon)),
      secret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function random(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}
