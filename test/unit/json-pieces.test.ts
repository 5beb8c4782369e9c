// A list answer parsed in pieces gives what JSON.parse gives, whatever its rows hold; a body a
// piece cannot prove is parsed whole, and what is not JSON fails as JSON.parse fails.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { PIECE_BYTES, parseJsonBytes } from '../../functions/lib/cloudforet/json-pieces.ts';

/** A deterministic generator (mulberry32): the same rows every run. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rows full of what a cut could be fooled by: `},{` in strings and nested lists of objects. */
function rows(count: number, seed: number) {
  const r = rng(seed);
  const nasty = ['},{', '"},{"', '\\"},{\\"', ']', '}]', '팀 {', '\u{1F600}},{', '\\', '},{"cost_id":"x'];
  return Array.from({ length: count }, (_, i) => ({
    cost_id: `cost-${i.toString(16).padStart(12, '0')}`,
    cost: r() * 1000,
    tags: { note: nasty[Math.floor(r() * nasty.length)]!.repeat(1 + Math.floor(r() * 4)) },
    data: { list: [{ cost_id: 'nested' }, { cost_id: [{ c: nasty[i % nasty.length] }] }] },
    blob: 'x'.repeat(Math.floor(r() * 900)),
  }));
}

const bytes = (text: string) => Buffer.from(text, 'utf8');
const parse = (text: string) => {
  const b = bytes(text);
  return parseJsonBytes(b, 0, b.length);
};

describe('parseJsonBytes', () => {
  it('gives JSON.parse of a list answer many pieces long, rows that mimic a cut included', () => {
    for (const seed of [1, 2, 3]) {
      const text = JSON.stringify({ results: rows(2000, seed), total_count: 123_456 });
      expect(text.length).toBeGreaterThan(10 * PIECE_BYTES);
      expect(isDeepStrictEqual(parse(text), JSON.parse(text))).toBe(true);
    }
  });

  it('never hands JSON.parse a string of more than a piece for rows of nested lists of objects', () => {
    // Cloud services hold lists of objects (`},{` everywhere): cuts go before the row's first key.
    const text = JSON.stringify({
      results: rows(3000, 8).map(({ tags, data, ...row }, i) => ({
        ...row,
        data: { disks: [{ size: i }, { size: 2 * i, tags: [{ k: 'a' }, { k: 'b' }] }] },
      })),
      total_count: 3000,
    });
    const spy = vi.spyOn(JSON, 'parse');
    try {
      expect(parse(text)).toEqual(JSON.parse(text));
      const lengths = spy.mock.calls.slice(0, -1).map(([piece]) => (piece as string).length);
      expect(lengths.length).toBeGreaterThan(10);
      expect(Math.max(...lengths)).toBeLessThanOrEqual(PIECE_BYTES + 2);
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps the answer as JSON.parse has it: no total_count, an empty list, a tail of other keys', () => {
    const list = rows(800, 9);
    const cases = [
      JSON.stringify({ results: list }),
      JSON.stringify({ results: list, total_count: 0 }),
      JSON.stringify({ results: list, more: [{ a: 1 }, { b: 2 }] }),
      JSON.stringify({ total_count: 800, results: list }),
      JSON.stringify({ results: [...list, [{ x: 1 }, { y: 2 }], 'tail},{'] }),
      `${JSON.stringify({ results: list, total_count: 800 })}\n`,
      JSON.stringify({ results: [] }),
    ];
    for (const text of cases) expect(parse(text)).toEqual(JSON.parse(text));
  });

  it('parses one row longer than a piece, and a list that closes before the last ]', () => {
    const long = JSON.stringify({ results: [{ a: 'y'.repeat(3 * PIECE_BYTES) }, { b: 1 }], total_count: 2 });
    expect(parse(long)).toEqual(JSON.parse(long));
    const early = `{"results":[${JSON.stringify(rows(500, 4)).slice(1, -1)}],"x":[{"a":1},{"b":2}]}`;
    expect(parse(early)).toEqual(JSON.parse(early));
  });

  it('fails where JSON.parse fails: a body cut short, a proxy page', () => {
    const text = JSON.stringify({ results: rows(600, 5), total_count: 600 });
    expect(() => parse(text.slice(0, text.length - 30))).toThrow(SyntaxError);
    expect(() => parse(`${text.slice(0, 200_000)}]}`)).toThrow(SyntaxError);
    expect(() => parse('<html>gateway</html>')).toThrow(SyntaxError);
  });

  it('reads from an offset inside a larger buffer, as the body pool hands it', () => {
    const text = JSON.stringify({ results: rows(900, 6), total_count: 900 });
    const buffer = Buffer.alloc(Buffer.byteLength(text) + 100, 0x20);
    buffer.write('\uFEFF', 0);
    const written = buffer.write(text, 3);
    expect(parseJsonBytes(buffer, 3, 3 + written)).toEqual(JSON.parse(text));
  });
});
