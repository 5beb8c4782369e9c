// The ids of one listing so far, to prove no row came twice while paging.
import { PagingDriftError } from '../errors.ts';

type ApiRecord = Record<string, unknown>;

/** The part of a listing request that says what makes a record unique. */
interface Identity {
  readonly path: string;
  readonly idKey: string;
  readonly identify?: (record: ApiRecord) => unknown;
}

export function checkIds(req: Identity, rows: readonly ApiRecord[], seen: SeenIds): void {
  for (const row of rows) {
    const id = req.identify ? req.identify(row) : row[req.idKey];
    if (id === undefined) continue;
    if (!seen.add(id))
      throw new PagingDriftError(`${req.path}: ${req.idKey} ${String(id)} came twice while paging`);
  }
}

/**
 * The ids of one listing so far. Answers are sorted by id, so while each id is above the last the
 * ids in order prove there is no repeat (no hashing); the first id out of that order moves them
 * all into a Set, which checks from then on. In order, string ids are kept a chunk at a time as
 * one string with their lengths: about 20 bytes an id instead of a string object and an array
 * slot each (~50), and a handful of objects for the GC to trace instead of one an id.
 */
export class SeenIds {
  /** The last id in order; undefined before the first. */
  private last: string | number | undefined;
  private readonly numbers: number[] = [];
  /** String ids in order: whole chunks joined, with each id's length, then the chunk being filled. */
  private readonly chunks: { text: string; lengths: Uint32Array }[] = [];
  private pending: string[] = [];
  private set: Set<unknown> | undefined;

  /** False when the id came before. */
  add(id: unknown): boolean {
    if (!this.set) {
      const { last } = this;
      if (
        (typeof id === 'string' || typeof id === 'number') &&
        (last === undefined || (typeof last === typeof id && id > last))
      ) {
        this.last = id;
        if (typeof id === 'number') this.numbers.push(id);
        else if (this.pending.push(id) === ID_CHUNK) this.seal();
        return true;
      }
      this.set = new Set(this.inOrder());
      this.chunks.length = 0;
      this.pending = [];
      this.numbers.length = 0;
    }
    if (this.set.has(id)) return false;
    this.set.add(id);
    return true;
  }

  private seal(): void {
    const lengths = new Uint32Array(this.pending.length);
    for (let i = 0; i < lengths.length; i++) lengths[i] = this.pending[i]!.length;
    this.chunks.push({ text: this.pending.join(''), lengths });
    this.pending = [];
  }

  private *inOrder(): Generator<string | number> {
    yield* this.numbers;
    for (const { text, lengths } of this.chunks) {
      let at = 0;
      for (const length of lengths) {
        yield text.slice(at, at + length);
        at += length;
      }
    }
    yield* this.pending;
  }
}

/** String ids joined at a time: ~17 KB strings for Cloudforet's ids. */
const ID_CHUNK = 1024;
