import { HtmlValidate } from "html-validate";
import { describe, expect, it } from "vitest";
import {
  renderErrorPage,
  renderSignInPage,
  renderSignOutPage,
  renderVerifyRequestPage,
} from "../src/lib/pages/index.js";
import type { Theme } from "../src/lib/types/config.js";
import type { InternalProvider } from "../src/lib/types/internal.js";
import type { CredentialInput, ProviderConfig } from "../src/lib/types/providers.js";
import Passkey from "../src/providers/passkey.js";

const BASE = "https://app.example/auth";
const SITE = "https://app.example";
const HOSTILE = `"><script>alert(1)</script>'`;

/** The page without the built-in passkey script, the only script a page may carry. */
const withoutPasskeyScript = (html: string) =>
  html.replace(
    /<script>\(function \(settings\) \{[\s\S]*?\}\)\(\{"formId":[^<]*\);<\/script>/g,
    "",
  );

const theme: Required<Theme> = { colorScheme: "auto", logo: "", brandColor: "", buttonText: "" };

function internal(config: ProviderConfig): InternalProvider {
  return {
    ...config,
    signinUrl: `${BASE}/signin/${config.id}`,
    callbackUrl: `${BASE}/callback/${config.id}`,
  };
}

function oauth(id: string, name: string, style?: Record<string, string>): InternalProvider {
  return internal({ id, name, type: "oauth", ...(style ? { style } : {}) });
}

function email(id = "email", name = "Email"): InternalProvider {
  return internal({ id, name, type: "email", sendVerificationRequest: () => {} });
}

function credentials(
  fields: Record<string, CredentialInput>,
  id = "credentials",
): InternalProvider {
  return internal({
    id,
    name: "Credentials",
    type: "credentials",
    credentials: fields,
    authorize: () => null,
  });
}

function passkey(formFields?: Record<string, CredentialInput>): InternalProvider {
  return internal({
    id: "passkey",
    name: "Passkey",
    type: "webauthn",
    ...(formFields ? { formFields } : {}),
  });
}

const allProviders = (): InternalProvider[] => [
  oauth("github", "GitHub", { bg: "#24292f", text: "#ffffff" }),
  oauth("google", "Google"),
  email(),
  credentials({
    username: { label: "User name", autocomplete: "username", required: true },
    password: { type: "password", autocomplete: "current-password" },
  }),
  passkey({ email: { label: "Email", required: true, autocomplete: "username webauthn" } }),
];

const signIn = (extra: Partial<Parameters<typeof renderSignInPage>[0]> = {}) =>
  renderSignInPage({ providers: allProviders(), csrfToken: "csrf-token", theme, ...extra });

/** Every page in a representative state, for the checks that apply to all of them. */
function everyPage(pageTheme: Required<Theme> = theme): Record<string, string> {
  return {
    "sign-in": signIn({
      theme: pageTheme,
      error: "OAuthSignin",
      email: "a@b.example",
      callbackUrl: "/x",
    }),
    "sign-out": renderSignOutPage({
      csrfToken: "t",
      action: `${BASE}/signout`,
      callbackUrl: "/",
      theme: pageTheme,
    }),
    "verify-request": renderVerifyRequestPage({ siteUrl: SITE, theme: pageTheme }),
    "error Configuration": renderErrorPage({
      error: "Configuration",
      siteUrl: SITE,
      signInUrl: `${BASE}/signin`,
      theme: pageTheme,
    }).html,
    "error AccessDenied": renderErrorPage({
      error: "AccessDenied",
      siteUrl: SITE,
      signInUrl: `${BASE}/signin`,
      theme: pageTheme,
    }).html,
    "error Verification": renderErrorPage({
      error: "Verification",
      siteUrl: SITE,
      signInUrl: `${BASE}/signin`,
      theme: pageTheme,
    }).html,
    "error (none)": renderErrorPage({
      siteUrl: SITE,
      signInUrl: `${BASE}/signin`,
      theme: pageTheme,
    }).html,
  };
}

const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });

async function htmlProblems(html: string): Promise<string[]> {
  const report = await validator.validateString(html);
  return report.results.flatMap((r) =>
    r.messages.map((m) => `${m.ruleId}: ${m.message} (line ${m.line})`),
  );
}

function labelTargets(html: string): string[] {
  return [...html.matchAll(/<label for="([^"]*)"/g)].map((m) => m[1] ?? "").sort();
}

function visibleInputIds(html: string): string[] {
  return [...html.matchAll(/<input ([^>]*)>/g)]
    .map((m) => m[1] ?? "")
    .filter((attrs) => !attrs.includes('type="hidden"'))
    .map((attrs) => /\bid="([^"]*)"/.exec(attrs)?.[1] ?? "(no id)")
    .sort();
}

function inputTag(html: string, id: string): string {
  const tag = html.match(new RegExp(`<input id="${id}"[^>]*>`))?.[0];
  expect(tag, `input #${id}`).toBeDefined();
  return tag ?? "";
}

describe("every built-in page", () => {
  it.each(Object.entries(everyPage()))(
    "%s is a valid HTML5 document (html-validate recommended)",
    async (_, html) => {
      expect(await htmlProblems(html)).toEqual([]);
    },
  );

  it("stays valid HTML with hostile values and a full theme", async () => {
    const fullTheme: Required<Theme> = {
      colorScheme: "dark",
      logo: "/logo.svg",
      brandColor: "#ffcc00",
      buttonText: "",
    };
    const html = renderSignInPage({
      providers: [
        oauth("a", HOSTILE, { logo: "data:image/png;base64,AAAA", brandColor: "#000" }),
        email("email", HOSTILE),
        credentials({
          code: { label: HOSTILE, placeholder: HOSTILE, onclick: "x", "bad name": 1 },
        }),
      ],
      csrfToken: HOSTILE,
      callbackUrl: HOSTILE,
      error: HOSTILE,
      email: HOSTILE,
      theme: fullTheme,
    });
    expect(await htmlProblems(html)).toEqual([]);
  });

  it.each(Object.entries(everyPage()))(
    "%s has doctype, language, charset, viewport and a main landmark",
    (_, html) => {
      expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
      expect(html).toContain('<meta charset="utf-8">');
      expect(html).toContain(
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
      );
      expect(html).toMatch(/<main[ >]/);
      expect(html).toContain(":focus-visible{outline:");
    },
  );

  it.each(Object.entries(everyPage()))(
    "%s loads no script and no asset from any host by default",
    (_, html) => {
      expect(html).not.toMatch(/src="?http/i);
      expect(html).not.toMatch(/url\(\s*["']?http/i);
      expect(withoutPasskeyScript(html)).not.toMatch(/<script/i);
      // The one link is the page's icon, an empty one unless the theme has a logo.
      expect(html.match(/<link[^>]*>/gi)).toEqual(['<link rel="icon" href="data:,">']);
      expect(html).not.toMatch(/@import/i);
    },
  );

  it.each(Object.entries(everyPage()))(
    "%s gives every visible input a matching label",
    (_, html) => {
      expect(labelTargets(html)).toEqual(visibleInputIds(html));
    },
  );

  it("titles name the page", () => {
    const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
    const pages = everyPage();
    expect(title(pages["sign-in"] ?? "")).toBe("Error: Sign In");
    expect(title(signIn())).toBe("Sign In");
    expect(title(pages["sign-out"] ?? "")).toBe("Sign Out");
    expect(title(pages["verify-request"] ?? "")).toBe("Verify Request");
    expect(title(pages["error (none)"] ?? "")).toBe("Error");
  });
});

describe("theme", () => {
  it.each(["auto", "dark", "light"] as const)(
    "colour scheme %s becomes the body class",
    (colorScheme) => {
      for (const html of Object.values(everyPage({ ...theme, colorScheme }))) {
        expect(html).toContain(`<body class="gatehouse-theme-${colorScheme}">`);
      }
    },
  );

  it("auto follows prefers-color-scheme", () => {
    expect(signIn()).toMatch(/@media \(prefers-color-scheme:dark\)\{\.gatehouse-theme-auto\{/);
  });

  it("an unknown colour scheme falls back to auto", () => {
    const odd = { ...theme, colorScheme: '"><x' } as unknown as Required<Theme>;
    expect(signIn({ theme: odd })).toContain('<body class="gatehouse-theme-auto">');
  });

  it("brand colour and button text become custom properties", () => {
    const html = signIn({
      theme: { ...theme, brandColor: "#0a7f3f", buttonText: "rgb(255 255 255)" },
    });
    expect(html).toContain("--brand-color:#0a7f3f");
    expect(html).toContain("--button-text-color:rgb(255 255 255)");
  });

  it("empty brand colour and button text set no custom property", () => {
    expect(signIn()).not.toMatch(/--brand-color:|--button-text-color:/);
  });

  it.each([
    "red;}body{display:none",
    "red}</style><script>alert(1)</script>",
    'url("https://evil.example/x.png")',
    "rgb(0 0 0);background:url(https://evil.example)",
    "'red'",
    "expression(alert(1))",
  ])("CSS injection in theme colours is ignored: %s", (attempt) => {
    const html = signIn({ theme: { ...theme, brandColor: attempt, buttonText: attempt } });
    expect(html).not.toContain("--brand-color:");
    expect(html).not.toContain("--button-text-color:");
    expect(html).not.toContain("evil.example");
    expect(html.match(/<\/style>/g)).toHaveLength(1);
    expect(withoutPasskeyScript(html)).not.toContain("<script");
  });

  it("an http(s), relative or data:image logo is shown above the card with empty alt", () => {
    for (const logo of [
      "https://cdn.example/logo.png",
      "/logo.svg",
      "data:image/png;base64,AAAA",
    ]) {
      const html = renderVerifyRequestPage({ siteUrl: SITE, theme: { ...theme, logo } });
      expect(html).toContain(`<img class="logo" src="${logo}" alt="">\n<div class="card">`);
    }
  });

  it.each([
    "javascript:alert(1)",
    "//evil.example/x.png",
    "data:text/html,<script>",
    "/\\evil.example",
    "/\t/evil.example",
  ])("an unsafe logo URL is dropped: %s", (logo) => {
    expect(renderVerifyRequestPage({ siteUrl: SITE, theme: { ...theme, logo } })).not.toContain(
      "<img",
    );
  });

  it("a logo URL with quotes stays inside its attribute", () => {
    const html = renderVerifyRequestPage({
      siteUrl: SITE,
      theme: { ...theme, logo: `https://cdn.example/${HOSTILE}` },
    });
    expect(withoutPasskeyScript(html)).not.toContain("<script>");
    expect(html).toContain("&quot;&gt;&lt;script&gt;");
  });
});

describe("sign-in page error box", () => {
  const message = (error: string) =>
    /<div id="error" class="error" role="alert" tabindex="-1" autofocus><p>([^<]*)<\/p><\/div>/.exec(
      signIn({ error }),
    )?.[1];

  it.each([
    "Signin",
    "OAuthSignin",
    "OAuthCallbackError",
    "OAuthCreateAccount",
    "EmailCreateAccount",
    "Callback",
  ])("%s suggests a different account", (error) =>
    expect(message(error)).toBe("Try signing in with a different account."),
  );

  it.each([
    ["OAuthAccountNotLinked", /sign in with the account you used originally/],
    ["EmailSignin", /email could not be sent/],
    ["CredentialsSignin", /Check that the details you provided are correct/],
    ["SessionRequired", /Please sign in to access this page/],
    ["MissingCSRF", /form expired/],
    ["AccountNotLinked", /passkey is not linked/],
  ])("%s gets its own message", (error, expected) => expect(message(error)).toMatch(expected));

  it.each(["Whatever", "constructor", "__proto__", "toString", HOSTILE])(
    "unknown value %s gets the generic message and is never echoed",
    (error) => {
      const html = signIn({ error });
      expect(message(error)).toBe("Unable to sign in.");
      expect(withoutPasskeyScript(html)).not.toContain(error);
      expect(withoutPasskeyScript(html)).not.toContain("<script>");
    },
  );

  it("no error, no error box", () => {
    expect(signIn()).not.toContain('class="error"');
    expect(signIn()).not.toContain("autofocus");
    expect(signIn()).not.toContain('aria-invalid="true" aria-describedby');
  });
});

describe("sign-in page providers", () => {
  it("an OAuth provider is a form posting the CSRF token and callback URL to its sign-in URL", () => {
    const html = signIn({ providers: [oauth("github", "GitHub")], callbackUrl: "/dashboard" });
    expect(html).toContain(
      `<form method="post" action="${BASE}/signin/github">\n` +
        '<input type="hidden" name="csrfToken" value="csrf-token">\n' +
        '<input type="hidden" name="callbackUrl" value="/dashboard">\n' +
        '<button type="submit" class="button button-provider provider-0">',
    );
    expect(html).toContain("<span>Sign in with GitHub</span>");
  });

  it("without a callback URL no callbackUrl field is rendered", () => {
    expect(signIn()).not.toContain('name="callbackUrl"');
  });

  it("CSRF token and callback URL are escaped", () => {
    const html = signIn({ csrfToken: HOSTILE, callbackUrl: HOSTILE });
    expect(withoutPasskeyScript(html)).not.toContain("<script>");
    expect(html).toContain(
      'name="callbackUrl" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"',
    );
  });

  it("provider brand colour, background and text colour style the button", () => {
    const html = signIn({
      providers: [
        oauth("a", "A", { brandColor: "#111111", bg: "#222222", text: "#eeeeee" }),
        oauth("b", "B", { bg: "#fafafa" }),
      ],
    });
    expect(html).toContain(
      ".provider-0{--provider-brand-color:#111111;--provider-text-color:#eeeeee}",
    );
    expect(html).toContain(
      ".provider-1{--provider-brand-color:#fafafa;--provider-text-color:#000000}",
    );
  });

  it("a provider without style uses the stylesheet default", () => {
    expect(signIn({ providers: [oauth("a", "A")] })).not.toContain(".provider-0{");
  });

  it("CSS injection in provider colours is ignored", () => {
    const html = signIn({
      providers: [oauth("a", "A", { brandColor: "red}</style><script>x</script>", text: "x;y" })],
    });
    expect(html).not.toContain("--provider-brand-color:");
    expect(html).not.toContain("--provider-text-color:");
    expect(withoutPasskeyScript(html)).not.toContain("<script>");
  });

  it("provider logos are shown only from data: URIs or the same site", () => {
    const logoOf = (logo: string) =>
      signIn({ providers: [oauth("a", "A", { logo })] }).includes(
        `class="provider-logo" src="${logo}"`,
      );
    expect(logoOf("data:image/svg+xml;base64,PHN2Zz4=")).toBe(true);
    expect(logoOf("/img/a.svg")).toBe(true);
    expect(logoOf(`${SITE}/img/a.svg`)).toBe(true);
    expect(logoOf("https://authjs.dev/img/providers/a.svg")).toBe(false);
    expect(logoOf("javascript:alert(1)")).toBe(false);
    expect(signIn({ providers: [oauth("a", "A")] })).not.toContain('provider-logo"');
  });

  it("provider names and ids are escaped", () => {
    const html = signIn({ providers: [oauth("x", HOSTILE), email(`e${HOSTILE}`, HOSTILE)] });
    expect(withoutPasskeyScript(html)).not.toContain("<script>");
    expect(html).toContain("Sign in with &quot;&gt;&lt;script&gt;");
    expect(html).toContain('for="input-email-for-e&quot;&gt;&lt;script&gt;');
  });

  it("an email provider has a labelled, required email input prefilled from the query", () => {
    const html = signIn({ providers: [email()], email: "me@example.com", callbackUrl: "/next" });
    expect(html).toContain(`<form method="post" action="${BASE}/signin/email">`);
    expect(html).toContain('<input type="hidden" name="callbackUrl" value="/next">');
    expect(html).toContain('<label for="input-email-for-email-provider">Email</label>');
    expect(inputTag(html, "input-email-for-email-provider")).toBe(
      '<input id="input-email-for-email-provider" type="email" name="email" autocomplete="email"' +
        ' placeholder="email@example.com" required value="me@example.com">',
    );
    expect(html).toContain(">Sign in with Email</button>");
  });

  it("the email prefill is escaped", () => {
    const html = signIn({ providers: [email()], email: HOSTILE });
    expect(withoutPasskeyScript(html)).not.toContain("<script>");
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"');
  });

  it("a credentials provider posts one labelled input per field to its callback URL", () => {
    const html = signIn({
      providers: [credentials({ username: {}, password: { label: "Secret", type: "password" } })],
      callbackUrl: "/next",
    });
    expect(html).toContain(`<form method="post" action="${BASE}/callback/credentials">`);
    expect(html).toContain('<input type="hidden" name="callbackUrl" value="/next">');
    expect(html).toContain('<label for="input-username-for-credentials-provider">Username</label>');
    expect(inputTag(html, "input-username-for-credentials-provider")).toBe(
      '<input id="input-username-for-credentials-provider" name="username" type="text"' +
        ' autocomplete="username">',
    );
    expect(html).toContain('<label for="input-password-for-credentials-provider">Secret</label>');
    expect(inputTag(html, "input-password-for-credentials-provider")).toContain('type="password"');
    expect(html).toContain(
      '<button type="submit" class="button button-primary">Sign in with Credentials</button>',
    );
  });

  it("credential input attributes pass through, except event handlers, reserved and odd ones", () => {
    const html = signIn({
      providers: [
        credentials({
          code: {
            placeholder: HOSTILE,
            required: true,
            disabled: false,
            maxLength: 6,
            "data-x": "y",
            onclick: "alert(1)",
            ONFOCUS: "alert(2)",
            'bad"name': "z",
            "x y": "z",
            formaction: "https://evil.example",
            style: "display:none",
            id: "hijack",
            name: "hijack",
            nested: { a: 1 },
            fn: () => "no",
            infinite: Number.POSITIVE_INFINITY,
          },
        }),
      ],
    });
    const tag = inputTag(html, "input-code-for-credentials-provider");
    expect(tag).toBe(
      '<input id="input-code-for-credentials-provider" name="code" type="text"' +
        ' placeholder="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;" required maxlength="6" data-x="y">',
    );
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toContain("evil.example");
  });

  it("the passkey section of Passkey() asks for nothing it would ignore", () => {
    const made = Passkey();
    expect(made.enableConditionalUI).toBe(false);
    // The factory's provider carries the passkey script (a hand-written one does not).
    const bare = signIn({ providers: [internal(made)] });
    const form = bare.slice(bare.indexOf('<form id="passkey-form"'), bare.indexOf("</form>"));
    expect(form).toContain(">Sign in with Passkey</button>");
    expect(form).not.toMatch(/<input(?![^>]*type="hidden")/);
    expect(bare).toContain('"conditional":false');
  });

  it("a passkey provider renders only when it has form fields, with no script yet", () => {
    expect(signIn({ providers: [passkey()] })).not.toContain("<form");
    const html = signIn({
      providers: [passkey({ email: { label: "Email", autocomplete: "username webauthn" } })],
    });
    expect(html).toContain(
      `<form id="passkey-form" method="post" action="${BASE}/callback/passkey">`,
    );
    expect(inputTag(html, "input-email-for-passkey-provider")).toContain(" data-form-field>");
    expect(html).toContain('<button id="submitButton-passkey" type="submit"');
    expect(html).toContain(">Sign in with Passkey</button>");
    expect(withoutPasskeyScript(html)).not.toContain("<script");
  });

  it("blocks follow configuration order with a separator between different kinds only", () => {
    const html = signIn();
    const order = [
      ...html.matchAll(/(?:<span>|">)Sign in with (\w+)<\/(?:span|button)>|class="divider"/g),
    ].map((m) => m[1] ?? "or");
    expect(order).toEqual([
      "GitHub",
      "Google",
      "or",
      "Email",
      "or",
      "Credentials",
      "or",
      "Passkey",
    ]);
    expect(signIn({ providers: [oauth("a", "A"), oauth("b", "B")] })).not.toContain(
      'class="divider"',
    );
    const mixed = signIn({ providers: [oauth("a", "A"), email(), oauth("b", "B")] });
    expect(mixed.match(/class="divider"/g)).toHaveLength(2);
  });
});

describe("sign-out page", () => {
  it("asks for confirmation and posts the CSRF token and callback URL to the action", () => {
    const html = renderSignOutPage({
      csrfToken: "tok",
      action: `${BASE}/signout`,
      callbackUrl: "/bye",
      theme,
    });
    expect(html).toContain("<h1>Sign out</h1>");
    expect(html).toContain("Are you sure you want to sign out?");
    expect(html).toContain(
      `<form method="post" action="${BASE}/signout">\n` +
        '<input type="hidden" name="csrfToken" value="tok">\n' +
        '<input type="hidden" name="callbackUrl" value="/bye">\n' +
        '<button type="submit" class="button button-primary">Sign out</button>',
    );
  });

  it("escapes every value and refuses a script URL as action", () => {
    const html = renderSignOutPage({
      csrfToken: HOSTILE,
      action: "javascript:alert(1)",
      callbackUrl: HOSTILE,
      theme,
    });
    expect(withoutPasskeyScript(html)).not.toContain("<script>");
    expect(html).not.toContain("javascript:");
    expect(html).toContain('action="/"');
  });
});

describe("verify-request page", () => {
  it("tells the user to check their email and links to the site by host", () => {
    const html = renderVerifyRequestPage({ siteUrl: "https://app.example:8443/home", theme });
    expect(html).toContain("<h1>Check your email</h1>");
    expect(html).toContain("A sign in link has been sent to your email address.");
    expect(html).toContain('<a href="https://app.example:8443/home">app.example:8443</a>');
  });
});

describe("error page", () => {
  const render = (error?: string) =>
    renderErrorPage({
      ...(error === undefined ? {} : { error }),
      siteUrl: SITE,
      signInUrl: `${BASE}/signin`,
      theme,
    });

  it.each([
    ["Configuration", 500, "Server error", false],
    ["AccessDenied", 403, "Access Denied", true],
    ["Verification", 403, "Unable to sign in", true],
    ["SessionStoreUnavailable", 200, "You are still signed in", false],
    ["Unknown", 200, "Error", false],
    [undefined, 200, "Error", false],
  ] as const)("%s answers %i with heading %s", (error, status, heading, linksToSignIn) => {
    const page = render(error);
    expect(page.status).toBe(status);
    expect(page.html).toContain(`<h1>${heading}</h1>`);
    expect(page.html.includes(`href="${BASE}/signin"`)).toBe(linksToSignIn);
  });

  it("explains each known error", () => {
    expect(render("Configuration").html).toMatch(/server logs/);
    expect(render("AccessDenied").html).toContain("You do not have permission to sign in.");
    expect(render("Verification").html).toMatch(
      /no longer valid[\s\S]*used already, or it may have expired/,
    );
    expect(render("SessionStoreUnavailable").html).toMatch(/did not finish[\s\S]*sign out again/);
  });

  it("links an unknown error to the site", () => {
    expect(render("Nope").html).toContain(`<a href="${SITE}">app.example</a>`);
  });

  it.each([HOSTILE, "constructor", "__proto__"])("never echoes the raw error value %s", (error) => {
    const page = render(error);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain(error);
  });
});

describe("accessibility and browser hygiene", () => {
  const codeForm = {
    action: `${BASE}/callback/email`,
    csrfToken: "t",
    length: 6,
    digits: true,
    email: "a@b.example",
  };

  it("the code input's pattern compiles as browsers compile it (v flag) and takes spaced codes", () => {
    const html = renderVerifyRequestPage({ siteUrl: SITE, theme, codeForm });
    const raw = /<input id="input-code"[^>]* pattern="([^"]*)"/.exec(html)?.[1];
    expect(raw).toBeDefined();
    const pattern = (raw ?? "").replaceAll("&amp;", "&");
    const compiled = new RegExp(`^(?:${pattern})$`, "v");
    for (const ok of ["123456", "123 456", "123-456"]) expect(compiled.test(ok)).toBe(true);
    expect(compiled.test("12a456")).toBe(false);
  });

  it("every page declares its icon: an empty one, or the theme's logo", () => {
    for (const html of Object.values(everyPage())) {
      expect(html).toContain('<link rel="icon" href="data:,">');
    }
    const logo = "https://cdn.example/logo.png";
    for (const html of Object.values(everyPage({ ...theme, logo }))) {
      expect(html).toContain(`<link rel="icon" href="${logo}">`);
    }
    const unsafe = renderVerifyRequestPage({
      siteUrl: SITE,
      theme: { ...theme, logo: "javascript:alert(1)" },
    });
    expect(unsafe).toContain('<link rel="icon" href="data:,">');
  });

  it("fields without autocomplete get one from their type or name; a field's own wins", () => {
    const html = signIn({
      providers: [
        credentials({
          username: {},
          email: { type: "email" },
          password: { type: "password" },
          phone: { type: "tel" },
          site: { type: "url" },
          newPassword: { type: "password", autocomplete: "new-password" },
          secret: { type: "password", autoComplete: "off" },
          nickname: {},
        }),
      ],
    });
    const autocomplete = (key: string) =>
      [
        ...inputTag(html, `input-${key}-for-credentials-provider`).matchAll(
          /autocomplete="([^"]*)"/g,
        ),
      ].map((m) => m[1]);
    expect(autocomplete("username")).toEqual(["username"]);
    expect(autocomplete("email")).toEqual(["email"]);
    expect(autocomplete("password")).toEqual(["current-password"]);
    expect(autocomplete("phone")).toEqual(["tel"]);
    expect(autocomplete("site")).toEqual(["url"]);
    expect(autocomplete("newPassword")).toEqual(["new-password"]);
    expect(autocomplete("secret")).toEqual(["off"]);
    expect(autocomplete("nickname")).toEqual([]);
  });

  it("a failed credentials sign-in: the error takes focus, titles the page, and marks the fields", () => {
    const html = signIn({ error: "CredentialsSignin", code: "credentials" });
    expect(html).toContain("<title>Error: Sign In</title>");
    expect(html).toMatch(/<div id="error" class="error" role="alert" tabindex="-1" autofocus>/);
    expect(html.match(/\sautofocus/g)).toHaveLength(1);
    for (const key of ["username", "password"]) {
      expect(inputTag(html, `input-${key}-for-credentials-provider`)).toContain(
        ' aria-invalid="true" aria-describedby="error"',
      );
    }
    expect(inputTag(html, "input-email-for-email-provider")).not.toContain("aria-invalid");
    expect(inputTag(html, "input-email-for-passkey-provider")).not.toContain("aria-invalid");
  });

  it("an email address refused: the email field is the one marked", () => {
    const html = signIn({ error: "EmailSignin", code: "invalid_email" });
    expect(inputTag(html, "input-email-for-email-provider")).toContain(
      ' aria-invalid="true" aria-describedby="error"',
    );
    expect(inputTag(html, "input-username-for-credentials-provider")).not.toContain("aria-invalid");
  });

  it("an error about no field marks none, but still takes focus and titles the page", () => {
    const html = signIn({ error: "OAuthSignin" });
    expect(html).not.toMatch(/<input[^>]*aria-invalid/);
    expect(html).toContain("<title>Error: Sign In</title>");
    expect(html).toContain('tabindex="-1" autofocus');
  });

  it("a wrong code: the error takes focus, titles the page, and marks the code field", () => {
    const wrong = renderVerifyRequestPage({
      siteUrl: SITE,
      theme,
      codeForm,
      codeError: "wrong_code",
    });
    expect(wrong).toContain("<title>Error: Verify Request</title>");
    expect(wrong).toMatch(/<div id="error" class="error" role="alert" tabindex="-1" autofocus>/);
    expect(inputTag(wrong, "input-code")).toContain(
      ' aria-invalid="true" aria-describedby="error"',
    );
    const unusable = renderVerifyRequestPage({
      siteUrl: SITE,
      theme,
      codeForm,
      codeError: "code_unusable",
    });
    expect(unusable).toContain("<title>Error: Verify Request</title>");
    expect(inputTag(unusable, "input-code")).not.toContain("aria-invalid");
    const fine = renderVerifyRequestPage({ siteUrl: SITE, theme, codeForm });
    expect(fine).toContain("<title>Verify Request</title>");
    expect(fine).not.toContain("autofocus");
  });

  it("the sign-out page after a refused sign-out says the sign-out form expired", () => {
    const render = (error?: string) =>
      renderSignOutPage({ csrfToken: "t", action: `${BASE}/signout`, theme, error });
    const expired = render("MissingCSRF");
    expect(expired).toContain("The sign out form expired. Please try again.");
    expect(expired).not.toMatch(/sign in/i);
    expect(expired).toContain("<title>Error: Sign Out</title>");
    expect(expired).toContain('tabindex="-1" autofocus');
    const other = render(HOSTILE);
    expect(other).toContain("Signing out did not work. Please try again.");
    expect(other).not.toContain(HOSTILE);
    expect(render()).not.toContain('class="error"');
  });

  it("three Email fields on one page sit in groups with distinct names", () => {
    const html = signIn({
      providers: [
        email(),
        credentials({ email: { label: "Email", type: "email" }, password: { type: "password" } }),
        passkey({ email: { label: "Email", autocomplete: "username webauthn" } }),
      ],
    });
    const groups = [
      ...html.matchAll(/<fieldset>\n<legend[^>]*>([^<]*)<\/legend>\n([\s\S]*?)<\/fieldset>/g),
    ].map((m) => ({ name: m[1] ?? "", inputs: visibleInputIds(m[2] ?? "") }));
    expect(groups.map((g) => g.name)).toEqual([
      "Sign in with Email",
      "Sign in with Credentials",
      "Sign in with Passkey",
    ]);
    // Every visible input is in exactly one group.
    expect(groups.flatMap((g) => g.inputs).sort()).toEqual(visibleInputIds(html));
    const emailLabels = [...html.matchAll(/<label for="([^"]*)">Email<\/label>/g)].map((m) => m[1]);
    expect(emailLabels).toHaveLength(3);
    const groupOf = (id: string) => groups.find((g) => g.inputs.includes(id))?.name;
    expect(new Set(emailLabels.map((id) => groupOf(id ?? "")))).toHaveProperty("size", 3);
  });

  it("the passkey error region is in the page from the start, empty, and announces", () => {
    const html = signIn({ providers: [passkey({ email: { label: "Email" } })] });
    const region = /<[a-z]+ id="passkey-error"[^>]*>/.exec(html)?.[0] ?? "";
    expect(region).toMatch(/role="alert"|aria-live="(assertive|polite)"/);
    expect(region).not.toMatch(/\shidden/);
    expect(html).toContain(`${region}</div>`);
  });
});
