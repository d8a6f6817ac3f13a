/**
 * Listener lists for the trackers of agents/lib.
 *
 * A stream handler that starts asynchronous agent work must return that
 * work's promise: the agent host then lets its continuations run before
 * virtual time moves on (src/sim/agent.ts). Returning a promise from every
 * message would cost the runner a turn of the event loop per message, so
 * `Listeners.emit` returns one only when some listener did.
 */
export type Listener<T> = (value: T) => void | Promise<void>;

export class Listeners<T> {
  private readonly list: Listener<T>[] = [];

  add(listener: Listener<T>): void {
    this.list.push(listener);
  }

  get size(): number {
    return this.list.length;
  }

  /** Calls every listener in the order added; a promise when any of them returned one. */
  emit(value: T): Promise<void> | undefined {
    let pending: Promise<void>[] | undefined;
    for (const listener of this.list) {
      const result = listener(value);
      if (result !== undefined) (pending ??= []).push(result);
    }
    if (pending === undefined) return undefined;
    return Promise.all(pending).then(() => undefined);
  }
}

/** Joins optional promises from several sources into one, or undefined when there is none. */
export function joinPending(...results: (Promise<void> | undefined)[]): Promise<void> | undefined {
  const pending = results.filter((result): result is Promise<void> => result !== undefined);
  if (pending.length === 0) return undefined;
  return Promise.all(pending).then(() => undefined);
}
