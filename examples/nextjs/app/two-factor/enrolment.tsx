import type { TwoFactorEnrolment } from "@gatehousejs/nextjs/client";
import type { FormEvent } from "react";

/**
 * A pending enrolment: the QR code (an SVG the auth route drew, shown as an image, so no markup
 * of the answer enters the page) and the key to type by hand, then the app's first code, which
 * turns two-factor sign-in on.
 */
export function Enrolment(props: {
  enrolment: TwoFactorEnrolment;
  busy: boolean;
  onConfirm: (event: FormEvent<HTMLFormElement>) => void;
}) {
  const { qrSvg, secret } = props.enrolment;
  return (
    <>
      <h2>Set up two-factor sign-in</h2>
      <p>Scan the QR code with your authenticator app, or type the key into it.</p>
      {/* biome-ignore lint/performance/noImgElement: an inline SVG made by the auth route */}
      <img
        className="qr"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(qrSvg)}`}
        alt="QR code of the key"
        width={200}
        height={200}
        data-testid="two-factor-qr"
      />
      <p>
        Key: <code data-testid="two-factor-secret">{secret}</code>
      </p>
      <form className="stack" onSubmit={props.onConfirm}>
        <label>
          The code your app shows
          <input
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            data-testid="two-factor-code"
          />
        </label>
        <button type="submit" disabled={props.busy} data-testid="two-factor-confirm">
          Turn on
        </button>
      </form>
    </>
  );
}
