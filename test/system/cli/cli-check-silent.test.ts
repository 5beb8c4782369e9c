// `check` against an endpoint that accepts connections and never answers, at default settings:
// one probe with a short deadline, not retried, and a message that says so, well within 30 s.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_TIMEOUT_MS } from '../../../cli/command-context.ts';
import { main } from '../../../cli/main.ts';
import { type RawServer, startSilentServer } from '../../../harness/raw-tcp.ts';
import { appFolder, makeTestToken } from '../../../harness/tokens.ts';
import { fakeIo } from '../../support/fake-io.ts';

describe('check against a silent endpoint', () => {
  let silent: RawServer;
  let dir: string;
  let secretFile: string;
  let work: string;

  beforeAll(async () => {
    silent = await startSilentServer();
    ({ dir, secretFile } = await appFolder('check-silent', makeTestToken()));
    work = await mkdtemp(join(tmpdir(), 'check-silent-out-'));
  });
  afterAll(async () => {
    await silent.close();
    await rm(dir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  it('gives up after one probe of 10 s and says the endpoint did not answer', async () => {
    const io = fakeIo();
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
    expect(silent.connections).toBe(1);
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
