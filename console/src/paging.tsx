import { useRef, useState } from 'preact/hooks';
import { messageOf } from './api.js';

/** Rows a listing shows at a time. */
export const PAGE_SIZE = 20;

/**
 * A listing shown a page at a time: the client's `pages` follows `Link: rel="next"` forward
 * only, so the pages read are kept for going back, and one page is read ahead to tell whether
 * "Next page" leads anywhere.
 */
export const usePages = <T,>(itemsOf: (page: unknown) => T[] = (page) => page as T[]) => {
  const [items, setItems] = useState<T[]>([]);
  const [pageNumber, setPageNumber] = useState(0);
  const [more, setMore] = useState(false);
  const [problem, setProblem] = useState<string>();
  const listing = useRef<(() => AsyncIterable<unknown>) | undefined>(undefined);
  const pages = useRef<AsyncIterator<unknown> | undefined>(undefined);
  const seen = useRef<T[][]>([]);

  const show = async (index: number) => {
    try {
      while (seen.current.length <= index + 1) {
        const next = await pages.current?.next();
        if (!next || next.done) break;
        const read = itemsOf(next.value);
        // An empty page after a full one (the listing ended exactly there) is no page to go to.
        if (read.length === 0 && seen.current.length > 0) break;
        seen.current.push(read);
      }
      const shown = Math.min(index, Math.max(seen.current.length - 1, 0));
      setItems(seen.current[shown] ?? []);
      setPageNumber(shown);
      setMore(seen.current.length > shown + 1);
      setProblem(undefined);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };

  /** Reads the listing again from its start and shows page `index` (or the last one left). */
  const readFrom = (index: number) => {
    pages.current = listing.current?.()[Symbol.asyncIterator]();
    seen.current = [];
    return show(index);
  };

  return {
    items,
    pageNumber,
    more,
    problem,
    show,
    /** A new listing (a search, a filter), from its first page. */
    restart: (open: () => AsyncIterable<unknown>) => {
      listing.current = open;
      return readFrom(0);
    },
    /** The same listing after a change, at the page shown. */
    reload: () => readFrom(pageNumber),
  };
};

/** Previous and Next; `label` names the listing when a screen has more than one. */
export const Pager = <T,>({
  paged,
  label = 'Pages',
}: {
  paged: ReturnType<typeof usePages<T>>;
  label?: string;
}) => (
  <nav class="pager" aria-label={label}>
    <button
      type="button"
      class="secondary"
      disabled={paged.pageNumber === 0}
      onClick={() => void paged.show(paged.pageNumber - 1)}
    >
      Previous page
    </button>
    <button
      type="button"
      class="secondary"
      disabled={!paged.more}
      onClick={() => void paged.show(paged.pageNumber + 1)}
    >
      Next page
    </button>
  </nav>
);

/** A listing the API answers whole (policies, managed roles), shown a page at a time like the rest. */
export async function* inPages<T>(read: () => Promise<T[]>): AsyncGenerator<T[]> {
  const all = await read();
  for (let start = 0; start === 0 || start < all.length; start += PAGE_SIZE)
    yield all.slice(start, start + PAGE_SIZE);
}
