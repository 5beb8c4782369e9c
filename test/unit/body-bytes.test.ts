// Answer bodies read into pooled buffers: the text is undici's body.text() text, whatever the
// chunking, the declared length, or the buffer a body before left behind.
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, readBody } from '../../functions/lib/cloudforet/body-bytes.ts';

async function* chunks(...parts: Uint8Array[]) {
  for (const part of parts) yield part;
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const MiB = 1024 * 1024;

/** `count` chunks of 64 KiB, counting the ones the reader asked for. */
function counted(count: number) {
  const source = {
    pulled: 0,
    async *chunks() {
      for (let i = 0; i < count; i++) {
        source.pulled++;
        yield new Uint8Array(64 * 1024).fill(0x20);
      }
    },
  };
  return source;
}

describe('readBody', () => {
  it('peeks at the last value of a key before the body is read, and not after', async () => {
    const text = JSON.stringify({
      results: [{ cost_id: 'cost-1' }, { cost_id: 'cost-2', data: { cost_id: 'nested' } }],
      total_count: 2500,
    });
    const body = await readBody(chunks(bytes(text)), undefined);
    // The last occurrence, wherever it is: a guess the pager checks against the parsed page.
    expect(body.peek('cost_id')).toBe('nested');
    expect(body.peek('total_count')).toBe(2500);
    expect(body.peek('absent')).toBeUndefined();
    const escaped = await readBody(
      chunks(bytes('{"results":[{"cost_id":"a\\"b"}],"total_count":"7"}')),
      undefined,
    );
    expect(escaped.peek('cost_id')).toBeUndefined();
    // A string where the pager wants a number: it then guesses nothing.
    expect(escaped.peek('total_count')).toBe('7');
    expect(body.json()).toEqual(JSON.parse(text));
    expect(body.peek('cost_id')).toBeUndefined();
  });

  it('peeks inside the body only, never at what an earlier body left in the pooled buffer', async () => {
    const earlier = await readBody(chunks(bytes('{"p":"abcdefghij"}')), '18');
    earlier.text(); // its buffer goes back to the pool, a quote at byte 16
    const cut = await readBody(chunks(bytes('{"cost_id":"abcd')), '16');
    expect(cut.peek('cost_id')).toBeUndefined();
  });

  it('joins chunks split inside a character and drops a leading BOM', async () => {
    const whole = Buffer.from('\uFEFF{"name":"팀-\u{1F600}"}', 'utf8');
    const cut = [whole.subarray(0, 2), whole.subarray(2, 13), whole.subarray(13)];

    const body = await readBody(chunks(...cut), String(whole.length));

    expect(body.text()).toBe('{"name":"팀-\u{1F600}"}');
  });

  it('grows past a declared length that was too small, and ignores one that is no number', async () => {
    const long = `{"rows":"${'x'.repeat(200_000)}"}`;

    const short = await readBody(chunks(bytes(long.slice(0, 70_000)), bytes(long.slice(70_000))), '10');
    const garbled = await readBody(chunks(bytes(long)), 'ten');

    expect(short.text()).toBe(long);
    expect(garbled.text()).toBe(long);
  });

  it('gives a body read into a reused buffer nothing of the longer body before', async () => {
    const first = await readBody(chunks(bytes('A'.repeat(50_000))), undefined);
    expect(first.text()).toHaveLength(50_000);

    const second = await readBody(chunks(bytes('{}')), '2');

    expect(second.text()).toBe('{}');
  });

  it('lets a body be read once only', async () => {
    const body = await readBody(chunks(bytes('{}')), '2');
    body.text();

    expect(() => body.text()).toThrow(/read once only/);
  });

  it('refuses a body whose content-length is over the limit before reading any of it', async () => {
    const source = counted(80);

    const failure = await readBody(source.chunks(), String(5 * MiB), MiB).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(BodyTooLargeError);
    expect(failure).toMatchObject({ maxBytes: 1_048_576, declared: 5_242_880 });
    expect(source.pulled).toBe(0);
  });

  it('stops at the chunk that takes a body without content-length over the limit', async () => {
    const source = counted(80);

    const failure = await readBody(source.chunks(), undefined, MiB).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(BodyTooLargeError);
    expect(failure).toMatchObject({ maxBytes: 1_048_576, declared: undefined });
    expect(source.pulled).toBe(17);
  });

  it('takes a body of exactly the limit', async () => {
    const source = counted(16);

    const body = await readBody(source.chunks(), undefined, MiB);

    expect(body.text()).toHaveLength(1_048_576);
  });

  it('passes on a failure of the stream', async () => {
    async function* broken() {
      yield bytes('{"par');
      throw new Error('socket hang up');
    }

    await expect(readBody(broken(), '100')).rejects.toThrow('socket hang up');
  });
});
