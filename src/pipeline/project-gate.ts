/**
 * Holds a project's later windows back until its first request has been answered. A wrong
 * project id (404) or a dead endpoint then costs one window's requests, not one per window in
 * flight: before this, `--concurrency 4` sent four requests into every 404 and four windows of
 * retries into a refused connection.
 */
export class ProjectGate {
  readonly #state = new Map<string, 'probing' | 'open' | 'closed'>();
  readonly #waiters = new Map<string, (() => void)[]>();

  /**
   * Resolves when a window of `projectId` may start: at once for the project's first window (the
   * probe) or once the probe has been answered; `false` when the project turned out not to exist.
   */
  async enter(projectId: string): Promise<boolean> {
    const state = this.#state.get(projectId);
    if (state === undefined) {
      this.#state.set(projectId, 'probing');
      return true;
    }
    if (state === 'probing') {
      await new Promise<void>((resolve) => {
        this.#waiters.set(projectId, [...(this.#waiters.get(projectId) ?? []), resolve]);
      });
    }
    return this.#state.get(projectId) !== 'closed';
  }

  /** The server answered for this project (a page arrived, or the probe ended some other way). */
  open(projectId: string): void {
    if (this.#state.get(projectId) === 'closed') return;
    this.#settle(projectId, 'open');
  }

  /** The project does not exist: its waiting and later windows are dropped. */
  close(projectId: string): void {
    this.#settle(projectId, 'closed');
  }

  #settle(projectId: string, state: 'open' | 'closed'): void {
    this.#state.set(projectId, state);
    for (const wake of this.#waiters.get(projectId) ?? []) wake();
    this.#waiters.delete(projectId);
  }
}
