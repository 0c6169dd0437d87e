/**
 * The open lists: `ErrorType`, `SecurityEventType`, `WarningCode`, `SignInPageErrorParam`,
 * `ProviderType`, `AdapterAccountType` and the keys of `CookiesOptions` are the keys of interfaces a feature extends from its own folder
 * (features/<name>/types.ts). An app that imports `@gatehousejs/core/types` must see every member
 * it saw when the lists were closed unions, and its own `declare module` must add members.
 *
 * The type checks compile small modules with the TypeScript compiler, each as the only file of its
 * own program, as an app's module would be: against the workspace sources (the repository's
 * `gatehouse-source` condition) and, when the package is built, against the published `dist/`
 * declarations. A list the types entry did not reach would lose members here, not in the
 * repository's own program (which holds every feature's file anyway).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import {
  AuthError,
  classifyErrorType,
  type ErrorType,
  isClientError,
  isClientMistake,
  SignInError,
} from "../src/lib/errors.js";
import { renderSignInPage } from "../src/lib/pages/index.js";
import { addSignInErrorMessage } from "../src/lib/pages/sign-in-errors.js";
import type { SignInPageErrorParam } from "../src/lib/types/config.js";

const root = resolve(import.meta.dirname, "../../..");
const built = existsSync(join(root, "packages/core/dist/types.d.ts"));

/** Each list as it was when it was a closed union. */
const today = {
  ErrorType: [
    "AuthError",
    "AccessDenied",
    "AccountNotLinked",
    "AdapterError",
    "CallbackRouteError",
    "CredentialsSignin",
    "DuplicateConditionalUI",
    "EmailSignInError",
    "ErrorPageLoop",
    "EventError",
    "ExperimentalFeatureNotEnabled",
    "InvalidCallbackUrl",
    "InvalidCheck",
    "InvalidEndpoints",
    "InvalidProvider",
    "JWTSessionError",
    "MissingAdapter",
    "MissingAdapterMethods",
    "MissingAuthorize",
    "MissingCSRF",
    "MissingSecret",
    "MissingWebAuthnAutocomplete",
    "OAuthAccountNotLinked",
    "OAuthCallbackError",
    "OAuthProfileParseError",
    "OAuthSignInError",
    "RateLimited",
    "RefreshTokenError",
    "SessionStoreUnavailable",
    "SessionTokenError",
    "SignOutError",
    "UnknownAction",
    "UnsupportedStrategy",
    "UntrustedHost",
    "Verification",
    "WebAuthnVerificationError",
    "TwoFactorFailed",
  ],
  SecurityEventType: [
    "signIn",
    "signInFailed",
    "signOut",
    "sessionRevoked",
    "accountLinked",
    "emailVerified",
    "twoFactorEnabled",
    "twoFactorDisabled",
    "backupCodeUsed",
    "backupCodesRegenerated",
    "twoFactorReset",
    "stepUpRequired",
    "trustedBrowserAdded",
    "passkeyRemoved",
  ],
  WarningCode: [
    "debug-enabled",
    "csrf-disabled",
    "env-url-basepath-redundant",
    "env-url-basepath-mismatch",
    "experimental-webauthn",
    "weak-secret",
    "untrusted-forwarded-for",
    "client-error",
  ],
  SignInPageErrorParam: [
    "Signin",
    "OAuthSignin",
    "OAuthCallbackError",
    "OAuthCreateAccount",
    "EmailCreateAccount",
    "Callback",
    "OAuthAccountNotLinked",
    "EmailSignin",
    "CredentialsSignin",
    "SessionRequired",
    "MissingCSRF",
    "AccountNotLinked",
    "RateLimited",
    "TwoFactorChallengeExpired",
  ],
  ProviderType: ["oauth", "oidc", "email", "credentials", "webauthn"],
  AdapterAccountType: ["oauth", "oidc", "email", "webauthn"],
  "keyof CookiesOptions": [
    "sessionToken",
    "callbackUrl",
    "csrfToken",
    "pkceCodeVerifier",
    "state",
    "nonce",
    "webauthnChallenge",
    "emailCode",
    "signInChallenge",
    "signInBinding",
    "twoFactorTrust",
  ],
} as const;

type List = keyof typeof today;
const lists = Object.keys(today) as List[];

/** What an app adds to each list in the augmentation below. */
const added: Record<List, string> = {
  ErrorType: "TwoFactorRequired",
  SecurityEventType: "twoFactorEnrolled",
  WarningCode: "two-factor-without-adapter",
  SignInPageErrorParam: "TwoFactorFailed",
  ProviderType: "phone",
  AdapterAccountType: "phone",
  "keyof CookiesOptions": "twoFactor",
};

const augmentation = `
declare module "@gatehousejs/core/types" {
  interface ErrorTypes { ${added.ErrorType}: true }
  interface SecurityEventTypes { ${added.SecurityEventType}: true }
  interface WarningCodes { "${added.WarningCode}": true }
  interface SignInPageErrors { ${added.SignInPageErrorParam}: true }
  interface ProviderTypes { ${added.ProviderType}: true }
  interface AdapterAccountTypes { ${added.AdapterAccountType}: true }
  interface CookiesOptions { ${added["keyof CookiesOptions"]}: CookieOption }
}
`;

const union = (members: readonly string[]) => members.map((m) => JSON.stringify(m)).join(" | ");

/** A module that asserts, for each list, that it is exactly `expected(list)`. */
function assertions(expected: (list: List) => readonly string[], extra = ""): string {
  return [
    "import type {",
    "  AuthConfig, CookieOption, CookiesOptions, ErrorType, LoggerInstance, SecurityEventType,",
    "  SignInPageErrorParam, WarningCode, ProviderType, AdapterAccountType,",
    '} from "@gatehousejs/core/types";',
    "type Equal<A, B> =",
    "  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;",
    ...lists.map(
      (list, i) => `export const list${i}: Equal<${list}, ${union(expected(list))}> = true;`,
    ),
    extra,
  ].join("\n");
}

function compilerOptions(source: boolean): ts.CompilerOptions {
  const path = join(root, "tsconfig.json");
  const { config, error } = ts.readConfigFile(path, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, path);
  const { customConditions: _, ...rest } = options;
  return {
    ...(source ? options : rest),
    noEmit: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
}

const modes = { source: compilerOptions(true), dist: compilerOptions(false) };
const parsed = new Map<string, ts.SourceFile | undefined>();
let previous: ts.Program | undefined;

/** Compiles `code` as the one module of an app's program; its errors as `line: TS<code> text`. */
function compile(code: string, mode: keyof typeof modes): string[] {
  const options = modes[mode];
  const path = join(root, "packages/core/test", `.open-lists-app.${mode}.ts`);
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => name === path || fileExists.call(host, name);
  host.readFile = (name) => (name === path ? code : readFile.call(host, name));
  host.getSourceFile = (name, language, onError, create) => {
    if (name === path) return ts.createSourceFile(name, code, language, true);
    // Library and package files are parsed once and shared by every program.
    if (!parsed.has(name))
      parsed.set(name, getSourceFile.call(host, name, language, onError, create));
    return parsed.get(name);
  };
  const program = ts.createProgram([path], options, host, previous);
  previous = program;
  const file = program.getSourceFile(path)!;
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
  ].map((d) => {
    const line =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

/** The lines of `code` that hold `text`, 1-based. */
const linesOf = (code: string, text: string) =>
  code.split("\n").flatMap((line, i) => (line.includes(text) ? [i + 1] : []));

/** The error lines of a compilation, without their messages. */
const errorLines = (errors: string[]) =>
  errors.map((e) => Number(e.slice(0, e.indexOf(":")))).sort((a, b) => a - b);

describe.each([
  ["the workspace sources", "source" as const, false],
  ["the built declarations (dist/)", "dist" as const, !built],
])("@gatehousejs/core/types, compiled against %s", (_, mode, skip) => {
  test.skipIf(skip)(
    "every list holds every member it held as a closed union",
    () => {
      expect(
        compile(
          assertions((list) => today[list]),
          mode,
        ),
      ).toEqual([]);
    },
    60_000,
  );

  test.skipIf(skip)(
    "the check is exact: a list that lost or gained a member fails it",
    () => {
      const lost = assertions((list) => today[list].slice(1));
      expect(errorLines(compile(lost, mode))).toEqual(linesOf(lost, "export const list"));
      const gained = assertions((list) => [...today[list], added[list]]);
      expect(errorLines(compile(gained, mode))).toEqual(linesOf(gained, "export const list"));
    },
    60_000,
  );

  test.skipIf(skip)(
    "an app's declare module adds a member to every list",
    () => {
      const uses = [
        augmentation,
        `export const cookies: AuthConfig["cookies"] = { ${added["keyof CookiesOptions"]}: { name: "2fa" } };`,
        `export const warn = (logger: LoggerInstance) => logger.warn("${added.WarningCode}");`,
      ].join("\n");
      const code = assertions((list) => [...today[list], added[list]], uses);
      expect(compile(code, mode)).toEqual([]);
      // Without the augmentation, each of those lines is an error.
      const without = code.replace(augmentation, "");
      const expected = [
        ...linesOf(without, "export const list"),
        ...linesOf(without, "export const cookies"),
        ...linesOf(without, "export const warn"),
      ].sort((a, b) => a - b);
      expect(errorLines(compile(without, mode))).toEqual(expected);
    },
    60_000,
  );
});

describe("runtime lists a feature adds to", () => {
  // The type a feature would declare in ErrorTypes; declaring it here would change the types of
  // the repository's whole program.
  const probe = "OpenListsProbe" as ErrorType;
  class Probe extends SignInError {
    override type: ErrorType = probe;
  }

  test("classifyErrorType lets a feature's error into `?error=` and the client's mistakes", () => {
    expect(isClientError(new Probe())).toBe(false);
    expect(isClientMistake(new Probe())).toBe(false);
    classifyErrorType(probe, { clientSafe: true });
    expect(isClientError(new Probe())).toBe(true);
    expect(isClientMistake(new Probe())).toBe(false);
    classifyErrorType(probe, { mistake: true });
    expect(isClientMistake(new Probe())).toBe(true);
    // The classification is by type: another error stays where it was.
    expect(isClientError(new AuthError("x"))).toBe(false);
  });

  test("addSignInErrorMessage gives the sign-in page a feature's message", () => {
    const value = "TwoFactorFailed" as SignInPageErrorParam;
    const page = (code?: string) =>
      renderSignInPage({
        providers: [],
        csrfToken: "t",
        error: value,
        ...(code ? { code } : {}),
        theme: { colorScheme: "auto", logo: "", brandColor: "", buttonText: "" },
      });
    expect(page()).toContain("Unable to sign in.");
    addSignInErrorMessage(value, "That code did not work.");
    expect(page()).toContain("That code did not work.");
    expect(page()).not.toContain("Unable to sign in.");
    addSignInErrorMessage(value, (code) => (code === "expired" ? "That code expired." : "No."));
    expect(page("expired")).toContain("That code expired.");
    expect(page("other")).toContain("No.");
  });

  test("the kernel's values and the rate-limit feature's keep their messages", () => {
    const page = (error: string, code?: string) =>
      renderSignInPage({
        providers: [],
        csrfToken: "t",
        error,
        ...(code ? { code } : {}),
        theme: { colorScheme: "auto", logo: "", brandColor: "", buttonText: "" },
      });
    expect(page("RateLimited", "90")).toContain(
      "Too many attempts. Please try again in 2 minutes.",
    );
    expect(page("InvalidCheck")).toContain("The sign in took too long or was interrupted.");
    expect(page("constructor")).toContain("Unable to sign in.");
  });
});
