/** The backup codes, shown once: the server keeps only their hashes. */
export function BackupCodes({ codes, onSaved }: { codes: string[]; onSaved: () => void }) {
  return (
    <>
      <h2>Your backup codes</h2>
      <p>
        Keep them somewhere safe: each one signs you in once when your phone is not at hand. They
        are not shown again.
      </p>
      <ul className="codes" data-testid="two-factor-backup-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onSaved} data-testid="two-factor-saved">
        I saved them
      </button>
    </>
  );
}
