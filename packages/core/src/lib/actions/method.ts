/** Thrown by an action that cannot answer this method for this provider: becomes a 405. */
export class MethodNotAllowed extends Error {
  constructor(readonly allow: string) {
    super(`Only ${allow} is allowed here`);
  }
}
