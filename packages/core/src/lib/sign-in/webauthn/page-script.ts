/**
 * The passkey script of the built-in sign-in page: inline, no third-party library. The WebAuthn
 * providers carry it (./declaration.ts), so that only an app with one bundles it; the page writes
 * the form and its error region (../../pages/signin.ts). It asks
 * `<basePath>/webauthn-options/<id>` which ceremony to run, calls the browser's WebAuthn API, and
 * posts the result (`action`, `data`) through the provider's form to its callback. The form's
 * button signs in; a "Create a passkey" button the script adds (unless `signInOnly`) registers
 * one (on the signed-in user's account, else for a new passkey-only user). No form field is sent: the server never
 * looks a user up by what the request says (docs/security.md).
 */
import type { InternalProvider } from "../../types/internal.js";
import type { WebAuthnConfig } from "../../types/providers.js";

/** JSON for a `<script>` body: no `</script>`, `<!--` or line separators can break out. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

// Runs in the browser. Written as plain ES2017 so every browser with WebAuthn runs it.
const body = `
  var form = document.getElementById(settings.formId);
  var errorBox = document.getElementById(settings.errorId);
  if (!form || !window.PublicKeyCredential) return;
  function dec(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    var bin = atob(s + "===".slice((s.length + 3) % 4));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function enc(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  }
  function withIds(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: dec(c.id) }); });
  }
  function asJson(cred) {
    var r = cred.response;
    var response = { clientDataJSON: enc(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = enc(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      response.authenticatorData = enc(r.authenticatorData);
      response.signature = enc(r.signature);
      if (r.userHandle) response.userHandle = enc(r.userHandle);
    }
    return {
      id: cred.id, rawId: enc(cred.rawId), type: cred.type, response: response,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      authenticatorAttachment: cred.authenticatorAttachment || undefined
    };
  }
  function hidden(name, value) {
    var input = document.createElement("input");
    input.type = "hidden"; input.name = name; input.value = value;
    form.appendChild(input);
  }
  // The live region is in the page from the start, empty: a region that appears together with
  // its text is not announced. It is emptied first, so the same message twice is read twice.
  // (Not role=alert: the page's one alert is its error box.)
  function fail() {
    if (!errorBox) return;
    errorBox.textContent = "";
    setTimeout(function () {
      var message = document.createElement("p");
      message.className = "error";
      message.textContent = "Signing in with a passkey did not work. Please try again.";
      errorBox.appendChild(message);
    }, 100);
  }
  // mode: "signin" (the server picks), "conditional" (autofill) or "register" (a new passkey).
  function run(mode) {
    var params = new URLSearchParams();
    if (mode === "conditional") params.set("action", "authenticate");
    if (mode === "register") params.set("action", "register");
    return fetch(settings.optionsUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (res) { if (!res.ok) throw new Error("options"); return res.json(); })
      .then(function (answer) {
        var o = answer.options;
        if (answer.action === "register") {
          return navigator.credentials.create({ publicKey: Object.assign({}, o, {
            challenge: dec(o.challenge), user: Object.assign({}, o.user, { id: dec(o.user.id) }),
            excludeCredentials: withIds(o.excludeCredentials) }) })
            .then(function (cred) { return ["register", cred]; });
        }
        var request = { publicKey: Object.assign({}, o, { challenge: dec(o.challenge), allowCredentials: withIds(o.allowCredentials) }) };
        if (mode === "conditional") request.mediation = "conditional";
        return navigator.credentials.get(request).then(function (cred) { return ["authenticate", cred]; });
      })
      .then(function (result) {
        hidden("action", result[0]);
        hidden("data", JSON.stringify(asJson(result[1])));
        form.submit();
      });
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    run("signin").catch(fail);
  });
  if (settings.register) {
    var create = document.createElement("button");
    create.type = "button"; create.id = settings.registerId; create.className = "button button-provider";
    create.textContent = "Create a passkey";
    create.addEventListener("click", function () { run("register").catch(fail); });
    form.appendChild(create);
  }
  if (settings.conditional && PublicKeyCredential.isConditionalMediationAvailable) {
    PublicKeyCredential.isConditionalMediationAvailable()
      .then(function (ok) { if (ok) return run("conditional"); })
      .catch(function () {});
  }
`;

/**
 * The inline script for one WebAuthn provider's form (`<id>-form`), which writes its failures
 * into the page's error region (`<id>-error`). `signInOnly`: no "Create a passkey" button and no
 * autofill (a page that offers a passkey to sign in with, as the two-factor challenge does).
 */
export function renderWebAuthnScript(
  provider: InternalProvider & WebAuthnConfig,
  options: { signInOnly?: boolean } = {},
): string {
  const settings = {
    formId: `${provider.id}-form`,
    errorId: `${provider.id}-error`,
    registerId: `registerButton-${provider.id}`,
    optionsUrl: provider.callbackUrl.replace(/\/callback\/([^/]+)$/, "/webauthn-options/$1"),
    conditional: options.signInOnly !== true && provider.enableConditionalUI === true,
    register: options.signInOnly !== true,
  };
  return `<script>(function (settings) {${body}})(${scriptJson(settings)});</script>`;
}
