/**
 * A listing that runs ahead of its reader, up to `max` items held: the reader takes them in order
 * as before, while the listing's pages keep coming, so a display knows how many there are (all of
 * them, when the listing ends within `max` of the reader). At most `max` items wait in memory
 * whatever the listing's length; a listing error reaches the reader where the listing failed,
 * after the items listed before it.
 */
export interface ListingAhead<T> extends AsyncIterable<T> {
  /** Stops the listing (its pending request finishes or fails first) and waits for it to end. */
  close(): Promise<void>;
}

export interface AheadHooks<T> {
  readonly onListed?: (item: T) => void;
  /** The listing ended, whole or by an error (not by close). */
  readonly onEnd?: () => void;
}

export function listAhead<T>(
  listing: AsyncIterable<T>,
  max: number,
  hooks: AheadHooks<T> = {},
): ListingAhead<T> {
  const queue = new Queue<T>();
  let finished = false;
  let closed = false;
  let failure: { error: unknown } | undefined;
  let wakeReader: (() => void) | undefined;
  let wakeLister: (() => void) | undefined;
  const wake = (which: 'reader' | 'lister'): void => {
    const w = which === 'reader' ? wakeReader : wakeLister;
    if (which === 'reader') wakeReader = undefined;
    else wakeLister = undefined;
    w?.();
  };

  const pump = (async (): Promise<void> => {
    try {
      for await (const item of listing) {
        queue.push(item);
        hooks.onListed?.(item);
        wake('reader');
        while (queue.size >= max && !closed) await new Promise<void>((r) => (wakeLister = r));
        if (closed) return;
      }
      hooks.onEnd?.();
    } catch (error) {
      if (closed) return;
      failure = { error };
      hooks.onEnd?.();
    } finally {
      finished = true;
      wake('reader');
    }
  })();

  async function* read(): AsyncGenerator<T> {
    for (;;) {
      const item = queue.shift();
      if (item !== undefined) {
        wake('lister');
        yield item.value;
        continue;
      }
      if (finished) {
        if (failure !== undefined) throw failure.error;
        return;
      }
      await new Promise<void>((r) => (wakeReader = r));
    }
  }

  return {
    [Symbol.asyncIterator]: read,
    async close() {
      closed = true;
      wake('lister');
      await pump;
    },
  };
}

/** First in, first out, without Array.shift's copy of what is left at every item. */
class Queue<T> {
  #items: T[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): { value: T } | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const value = this.#items[this.#head] as T;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return { value };
  }
}
