/** Protected by authMiddleware in src/middleware.ts: nothing here reads the session. */
export default function Members() {
  return (
    <section>
      <h1 data-testid="members">Members only</h1>
    </section>
  );
}
