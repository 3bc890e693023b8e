import { useRef, useState } from 'preact/hooks';
import { messageOf } from './api.js';
import { ProblemMessage } from './outcome.js';

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
  /** The reading under way: a restart or reload replaces it, and what an older one reads is dropped. */
  const reading = useRef<{ pages?: AsyncIterator<unknown>; seen: T[][] }>({ seen: [] });

  const show = async (index: number) => {
    const current = reading.current;
    const { seen } = current;
    try {
      while (seen.length <= index + 1) {
        const next = await current.pages?.next();
        if (reading.current !== current) return;
        if (!next || next.done) break;
        const read = itemsOf(next.value);
        // An empty page after a full one (the listing ended exactly there) is no page to go to.
        if (read.length === 0 && seen.length > 0) break;
        seen.push(read);
      }
      const shown = Math.min(index, Math.max(seen.length - 1, 0));
      setItems(seen[shown] ?? []);
      setPageNumber(shown);
      setMore(seen.length > shown + 1);
      setProblem(undefined);
    } catch (error) {
      if (reading.current !== current) return;
      // Nothing of this listing read yet: show none of the one before.
      if (seen.length === 0) {
        setItems([]);
        setMore(false);
      }
      setProblem(messageOf(error));
    }
  };

  /** Reads the listing again from its start and shows page `index` (or the last one left). */
  const readFrom = (index: number) => {
    reading.current = { pages: listing.current?.()[Symbol.asyncIterator](), seen: [] };
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

type Paged<T> = ReturnType<typeof usePages<T>>;

/**
 * Previous and Next; `label` names the listing when a screen has more than one. A button that
 * leads nowhere is `aria-disabled`, not `disabled`, so the focus stays on it (keyboard users).
 */
export const Pager = <T,>({ paged, label = 'Pages' }: { paged: Paged<T>; label?: string }) => {
  const button = (text: string, leads: boolean, index: number) => (
    <button
      type="button"
      class="secondary"
      aria-disabled={leads ? undefined : 'true'}
      onClick={() => leads && void paged.show(index)}
    >
      {text}
    </button>
  );
  return (
    <nav class="pager" aria-label={label}>
      {button('Previous page', paged.pageNumber > 0, paged.pageNumber - 1)}
      {button('Next page', paged.more, paged.pageNumber + 1)}
    </nav>
  );
};

/** A listing's table: its page number (or that it is empty), its columns and rows, what failed, and its pager. */
export const PagedTable = <T,>({
  paged,
  noun,
  columns,
  row,
  label,
}: {
  paged: Paged<T>;
  /** What the rows are, for the caption: "no users". */
  noun: string;
  columns: readonly string[];
  row: (item: T) => preact.JSX.Element;
  /** Names the table and its pager when a screen shows more than one listing. */
  label?: string;
}) => (
  <>
    <ProblemMessage problem={paged.problem} />
    <table aria-label={label}>
      <caption>
        Page {paged.pageNumber + 1}
        {paged.items.length === 0 ? `: no ${noun}` : ''}
      </caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{paged.items.map(row)}</tbody>
    </table>
    <Pager paged={paged} label={label ? `${label} pages` : undefined} />
  </>
);

/** A listing the API answers whole (policies, managed roles), shown a page at a time like the rest. */
export async function* inPages<T>(read: () => Promise<T[]>): AsyncGenerator<T[]> {
  const all = await read();
  for (let start = 0; start === 0 || start < all.length; start += PAGE_SIZE)
    yield all.slice(start, start + PAGE_SIZE);
}
