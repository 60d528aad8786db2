import { cursorOfRow, type RestatedRow, type RestatePage, type RestateRequest, type TimeRange } from './aspect-store';

/**
 * The part of a restore page every adapter shares: given the rows of the sequence from the request's start, in order,
 * it keeps those the request matches (entity, aspects, URN predicate, time written), passes over `skip` of them, and takes up to `limit`, reading at most `scanLimit`
 * rows. Adapters seek each source (latest values, then timeseries values) to {@link urnScanStart} and end it at the
 * first row out of {@link inUrnScope}: rows come in URN order, so none after it is in scope.
 */
export function restatePage(
  request: RestateRequest,
  rows: Iterable<RestatedRow>,
): { rows: RestatedRow[]; page: RestatePage } {
  const page = new PageBuilder(request);
  for (const row of rows) if (!page.offer(row)) break;
  return page.result();
}

/** {@link restatePage} over rows read asynchronously (a database cursor). */
export async function restatePageAsync(
  request: RestateRequest,
  rows: AsyncIterable<RestatedRow>,
): Promise<{ rows: RestatedRow[]; page: RestatePage }> {
  const page = new PageBuilder(request);
  for await (const row of rows) if (!page.offer(row)) break;
  return page.result();
}

/** Where a scan of the request's rows starts: at its entity, at its URN prefix, or at the beginning. */
export function urnScanStart(request: RestateRequest): string {
  return request.urn ?? request.urnPrefix ?? '';
}

/**
 * Where a scan resuming after `after` may seek to: the cursor's URN (every later row's URN is at least that, and the
 * cursor lies within the scope), or the scope's start when there is no cursor.
 */
export function seekFrom(start: string, after: { readonly urn: string } | undefined): string {
  return after === undefined || after.urn < start ? start : after.urn;
}

/** Whether a URN is within the request's entity or prefix. */
export function inUrnScope(request: RestateRequest, urn: string): boolean {
  if (request.urn !== undefined) return urn === request.urn;
  if (request.urnPrefix !== undefined) return urn.startsWith(request.urnPrefix);
  return true;
}

/**
 * Whether a row written at `createdOn` lies in the range, bounds included. Checked as the rows are read, like the other
 * narrowings, rather than in the adapters' queries: a page then still reads at most `scanLimit` rows, however few of
 * them the range accepts (a query filtering by time would walk every row outside it in one step).
 */
function writtenWithin(range: TimeRange | undefined, createdOn: number): boolean {
  if (range === undefined) return true;
  return (
    (range.fromMillis === undefined || createdOn >= range.fromMillis) &&
    (range.untilMillis === undefined || createdOn <= range.untilMillis)
  );
}

class PageBuilder {
  private readonly taken: RestatedRow[] = [];
  private skipped = 0;
  private last: RestatedRow | undefined;
  private readonly aspects: ReadonlySet<string> | undefined;
  /** Rows read so far, matching or not. */
  private read = 0;
  /** Whether the page ended at the request's `scanLimit` rather than full or at the end of the sequence. */
  private cut = false;

  constructor(private readonly request: RestateRequest) {
    this.aspects = request.aspects === undefined ? undefined : new Set(request.aspects);
  }

  /**
   * Considers the next row of the sequence; false once the page is full, has read `scanLimit` rows (it then ends at
   * this row, to resume after it), or the scan has left the request's scope.
   */
  offer(row: RestatedRow): boolean {
    this.read += 1;
    const more = this.consider(row);
    const { scanLimit } = this.request;
    if (!more || scanLimit === undefined || this.read < scanLimit) return more;
    this.last = row;
    this.cut = true;
    return false;
  }

  private consider(row: RestatedRow): boolean {
    const { urn, aspect } = row.row;
    const { request } = this;
    if (!inUrnScope(request, urn)) return true;
    if (this.aspects !== undefined && !this.aspects.has(aspect)) return true;
    if (request.urnMatches !== undefined && !request.urnMatches(urn)) return true;
    if (!writtenWithin(request.createdOn, row.row.createdOn)) return true;
    this.last = row;
    if (this.skipped < (request.skip ?? 0)) {
      this.skipped += 1;
      return true;
    }
    this.taken.push(row);
    return this.taken.length < request.limit;
  }

  result(): { rows: RestatedRow[]; page: RestatePage } {
    return {
      rows: this.taken,
      page: {
        rows: this.taken.length,
        skipped: this.skipped,
        last: this.last === undefined ? undefined : cursorOfRow(this.last),
        exhausted: !this.cut && this.taken.length < this.request.limit,
      },
    };
  }
}
