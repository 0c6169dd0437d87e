"use client";
import {
  confirmTwoFactor,
  disableTwoFactor,
  enrollTwoFactor,
  forgetTrustedBrowser,
  regenerateBackupCodes,
  type TwoFactorEnrolment,
  type TwoFactorStatus,
  twoFactorStatus,
} from "@gatehousejs/nextjs/client";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { Answer } from "@/components/Answer";
import { SignedOut } from "@/components/SignedOut";
import { type Refusal, refusalOf } from "@/lib/route-answer";
import { BackupCodes } from "./backup-codes";
import { Enrolment } from "./enrolment";
import { TrustedBrowsers } from "./trusted-browsers";

const PAGE = "/two-factor";

/** The code typed in a form's `code` field, without the spaces an app shows in it. */
const codeOf = (event: FormEvent<HTMLFormElement>) =>
  String(new FormData(event.currentTarget).get("code") ?? "").replace(/\s+/g, "");

/**
 * Two-factor sign-in, on the app's own page, with the client kit's calls (each posts to
 * `/api/auth/two-factor/<route>` with the CSRF token): `twoFactorStatus()`, `enrollTwoFactor()`
 * (a secret and its QR code, made by the server), `confirmTwoFactor()` with the app's first code
 * (then the backup codes, shown once), `regenerateBackupCodes()`, `forgetTrustedBrowser()` and
 * `disableTwoFactor()` with a code or a backup code. The challenge after a password is the auth
 * route's built-in page, which also offers to trust the browser for 30 days.
 */
export default function TwoFactor() {
  /** `undefined` while reading, `null` signed out. */
  const [status, setStatus] = useState<TwoFactorStatus | null | undefined>(undefined);
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [backupCodes, setBackupCodes] = useState<string[] | null>(null);
  const [answer, setAnswer] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);

  const reload = useCallback(async () => {
    try {
      setStatus(await twoFactorStatus());
    } catch (error) {
      setAnswer(refusalOf(error, "Two-factor sign-in could not be read.", PAGE));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  /** Runs one call, shows what was refused, and reads the status again. */
  async function run(call: () => Promise<string | undefined>, failed: string) {
    setBusy(true);
    setAnswer(null);
    try {
      const message = await call();
      if (message) setAnswer({ message });
    } catch (error) {
      setAnswer(refusalOf(error, failed, PAGE));
    } finally {
      setBusy(false);
      await reload();
    }
  }

  const start = () =>
    run(async () => {
      setEnrolment(await enrollTwoFactor());
      return undefined;
    }, "Two-factor sign-in could not be set up.");

  const confirm = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = codeOf(event);
    return run(async () => {
      const enabled = await confirmTwoFactor(code);
      setEnrolment(null);
      setBackupCodes(enabled.backupCodes);
      return undefined;
    }, "Two-factor sign-in was not turned on.");
  };

  const regenerate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = codeOf(event);
    return run(async () => {
      setBackupCodes((await regenerateBackupCodes(code)).backupCodes);
      return undefined;
    }, "No new backup codes were made.");
  };

  const disable = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const typed = codeOf(event);
    // Six digits are the app's code; anything else is taken for a backup code.
    const proof = /^\d{6}$/.test(typed) ? { code: typed } : { backupCode: typed };
    return run(
      async () => (await disableTwoFactor(proof)).message,
      "Two-factor sign-in was not turned off.",
    );
  };

  const forget = (target: { id: string } | { all: true }) =>
    run(async () => (await forgetTrustedBrowser(target)).message, "The browser was not forgotten.");

  return (
    <section className="card">
      <h1>Two-factor sign-in</h1>
      {status === undefined ? <p className="muted">Reading your settings…</p> : null}
      {status === null ? <SignedOut page={PAGE} testId="two-factor" /> : null}
      {status && backupCodes ? (
        <BackupCodes codes={backupCodes} onSaved={() => setBackupCodes(null)} />
      ) : null}
      {status && !backupCodes && enrolment ? (
        <Enrolment enrolment={enrolment} busy={busy} onConfirm={confirm} />
      ) : null}
      {status && !backupCodes && !enrolment && !status.enabled ? (
        <>
          <p data-testid="two-factor-off">
            Two-factor sign-in is off: a password, an email link or a code signs you in alone.
          </p>
          <button type="button" disabled={busy} onClick={start} data-testid="two-factor-enroll">
            Set up two-factor sign-in
          </button>
        </>
      ) : null}
      {status && !backupCodes && !enrolment && status.enabled ? (
        <>
          <p data-testid="two-factor-on">
            Two-factor sign-in is on: after your password, an email link or a code, you give a code
            from your authenticator app or a backup code.{" "}
            <span data-testid="two-factor-backup-codes-left" data-count={status.backupCodesLeft}>
              {status.backupCodesLeft} backup code{status.backupCodesLeft === 1 ? "" : "s"} left
            </span>
            .
          </p>
          <h2>New backup codes</h2>
          <p className="muted">Every old backup code stops working.</p>
          <form className="stack" onSubmit={regenerate}>
            <CodeField testId="two-factor-regenerate-code" label="Code from your app" />
            <button type="submit" disabled={busy} data-testid="two-factor-regenerate">
              Make new backup codes
            </button>
          </form>
          <TrustedBrowsers browsers={status.trustedBrowsers} busy={busy} onForget={forget} />
          <h2>Turn it off</h2>
          <form className="stack" onSubmit={disable}>
            <CodeField
              testId="two-factor-disable-code"
              label="Code from your app, or a backup code"
            />
            <button
              type="submit"
              className="secondary"
              disabled={busy}
              data-testid="two-factor-disable"
            >
              Turn off two-factor sign-in
            </button>
          </form>
        </>
      ) : null}
      <Answer answer={answer} testId="two-factor" />
    </section>
  );
}

/** A field for a code from the authenticator app (or a backup code). */
function CodeField({ testId, label }: { testId: string; label: string }) {
  return (
    <label>
      {label}
      <input
        name="code"
        autoComplete="one-time-code"
        required
        spellCheck={false}
        data-testid={testId}
      />
    </label>
  );
}
