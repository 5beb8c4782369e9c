// check and costs against an endpoint that accepts connections and never answers. check: one
// probe with a short deadline, not retried, and a message that says so, well within 30 s. costs:
// the run gives up once the endpoint has been silent for --give-up-after (default 60 s), not after
// 5 attempts x --timeout, and its last line states the real figures: how long, how many attempts,
// of how long each.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIVE_UP_AFTER_S, PROBE_TIMEOUT_MS } from '../../../cli/command-context.ts';
import { main } from '../../../cli/main.ts';
import { type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { appFolder, makeTestToken } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';

let silent: RawServer;
let dir: string;
let secretFile: string;
let work: string;

beforeAll(async () => {
  silent = await startSilentServer();
  ({ dir, secretFile } = await appFolder('silent-endpoint', makeTestToken()));
  work = await mkdtemp(join(tmpdir(), 'silent-endpoint-out-'));
});
afterAll(async () => {
  await silent.close();
  await rm(dir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

describe('check against a silent endpoint', () => {
  it('gives up after one probe of 10 s and says the endpoint did not answer', async () => {
    const io = fakeIo();
    const connections = silent.connections;
    const started = performance.now();

    const exit = await main(
      ['check', '--endpoint', silent.url, '--secret-file', secretFile, '--out', work],
      {},
      io,
    );

    const seconds = (performance.now() - started) / 1000;
    expect(PROBE_TIMEOUT_MS).toBe(10_000);
    expect(exit).toBe(1);
    expect(seconds).toBeGreaterThanOrEqual(9.5);
    expect(seconds).toBeLessThan(30);
    expect(silent.connections - connections).toBe(1);
    expect(io.err()).toMatch(
      new RegExp(
        `^check: waiting for ${silent.url}: no answer for 5 s \\(each request waits 10 s at most; --timeout\\)\n` +
          `cloudforet-export: endpoint ${silent.url} did not answer: no answer for \\S+ within 10 s`,
      ),
    );
    expect(io.err()).toContain('check tries once and gives up');
    expect(io.err()).toMatch(/\[CLOUDFORET_DEADLINE\]\n$/);
    expect(io.out()).toMatch(/^secret {3}ok: /);
  }, 40_000);
});

describe('costs against a silent endpoint', () => {
  it('gives up after --give-up-after seconds of silence and says how long it waited', async () => {
    const io = fakeIo();
    const started = performance.now();

    const exit = await main(
      [
        'costs',
        ...['--endpoint', silent.url, '--secret-file', secretFile, '--out', work],
        ...['--timeout', '2', '--give-up-after', '5'],
      ],
      {},
      io,
    );

    const seconds = (performance.now() - started) / 1000;
    const last = io.err().trim().split('\n').pop() ?? '';
    expect(exit).toBe(1);
    // Attempts start while the silence is under 5 s: at 0, about 2.2 and 4.5 s; the last ends near 6.5 s.
    expect(seconds).toBeGreaterThanOrEqual(6);
    expect(seconds).toBeLessThan(5 + 2 + 3);
    expect(last).toMatch(
      new RegExp(
        `^cloudforet-export: cloudforet: ${silent.url} answered nothing for [67]\\.\\d s \\(3 attempts of up to 2 s for /cost-analysis/data-source/list; no other request was answered meanwhile\\)`,
      ),
    );
    expect(last).toMatch(/gives up after 5 s of silence \(--give-up-after; .*\) \[CLOUDFORET_SILENT\]$/);
    expect(io.err().match(/cloudforet request retried/g)).toHaveLength(2);
  }, 30_000);

  it('says every 5 s that it waits for the endpoint, until it gives up', async () => {
    const io = fakeIo();

    const exit = await main(
      [
        'costs',
        ...['--endpoint', silent.url, '--secret-file', secretFile, '--out', work],
        ...['--timeout', '12', '--give-up-after', '11'],
      ],
      {},
      io,
    );

    expect(exit).toBe(1);
    const waits = io.err().match(/^costs: waiting for .*$/gm) ?? [];
    expect(waits).toEqual([
      `costs: waiting for ${silent.url}: no answer for 5 s (gives up after 12 s of silence; --give-up-after)`,
      `costs: waiting for ${silent.url}: no answer for 10 s (gives up after 12 s of silence; --give-up-after)`,
    ]);
  }, 30_000);

  it('waits 60 s of silence at most by default', () => {
    expect(GIVE_UP_AFTER_S).toBe(60);
  });

  it('at default settings (no --timeout, no --give-up-after) ends within 90 s, exit 1', async () => {
    const io = fakeIo();
    const started = performance.now();

    const exit = await main(
      ['costs', ...['--endpoint', silent.url, '--secret-file', secretFile, '--out', work]],
      {},
      io,
    );

    const seconds = (performance.now() - started) / 1000;
    const last = io.err().trim().split('\n').pop() ?? '';
    expect(exit).toBe(1);
    expect(seconds).toBeGreaterThanOrEqual(GIVE_UP_AFTER_S - 1);
    expect(seconds).toBeLessThan(90);
    expect(last).toMatch(
      /^cloudforet-export: cloudforet: .* answered nothing for 6\d(\.\d)? s \(1 attempt of up to 60 s .*\[CLOUDFORET_SILENT\]$/,
    );
  }, 120_000);
});
