// The unit retry loop every run shares (export/unit-attempts.ts): retryable failures are redone up
// to the attempts given, others fail at once, a stopped run's unit is never retried, and nothing
// it does throws.
import { describe, expect, it } from 'vitest';
import { CloudforetApiError, PagingDriftError } from '../../functions/lib/errors.ts';
import { attemptUnit, UNIT_INTERRUPTED } from '../../functions/lib/export/unit-attempts.ts';
import { silentLogger } from '../../functions/lib/log.ts';

const opts = { what: 'test unit', log: silentLogger, fields: {} };
const transient = () =>
  new CloudforetApiError({ status: 503, path: '/x', retryable: true, message: 'cloudforet: 503' });
const refused = () =>
  new CloudforetApiError({ status: 403, path: '/x', retryable: false, message: 'cloudforet: 403' });

/** Work that throws the given errors in turn, then returns 'done'. */
function failingThen(errors: Error[]) {
  let calls = 0;
  const work = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'done';
  };
  return { work, calls: () => calls };
}

describe('attemptUnit', () => {
  it('returns the value and how many retries it took', async () => {
    const { work, calls } = failingThen([transient(), new PagingDriftError('moved')]);

    const outcome = await attemptUnit({ ...opts, attempts: 3 }, work);

    expect(outcome).toEqual({ ok: true, value: 'done', retries: 2 });
    expect(calls()).toBe(3);
  });

  it('fails with the last error once the attempts are spent, and says it may pass', async () => {
    const { work, calls } = failingThen([transient(), transient(), transient()]);

    const outcome = await attemptUnit({ ...opts, attempts: 2 }, work);

    expect(outcome).toEqual({
      ok: false,
      failure: { code: 'CLOUDFORET_HTTP_503', message: 'cloudforet: 503', attempts: 2, retryable: true },
      retries: 1,
    });
    expect(calls()).toBe(2);
  });

  it('does not retry an error that will not pass', async () => {
    const { work, calls } = failingThen([refused()]);

    const outcome = await attemptUnit({ ...opts, attempts: 5 }, work);

    expect(outcome).toMatchObject({
      ok: false,
      failure: { code: 'CLOUDFORET_HTTP_403', attempts: 1, retryable: false },
    });
    expect(calls()).toBe(1);
  });

  it('fails a unit its run stopped as UNIT_INTERRUPTED, without retrying it', async () => {
    const controller = new AbortController();
    let calls = 0;
    const work = async () => {
      calls++;
      controller.abort(new Error('the function is about to time out'));
      throw transient();
    };

    const outcome = await attemptUnit({ ...opts, attempts: 5, signal: controller.signal }, work);

    expect(outcome).toMatchObject({
      ok: false,
      failure: { code: UNIT_INTERRUPTED, attempts: 1, retryable: true },
    });
    expect(outcome.ok ? '' : outcome.failure.message).toContain('the function is about to time out');
    expect(calls).toBe(1);
  });

  it('takes three attempts when none are given', async () => {
    const { work, calls } = failingThen([transient(), transient(), transient(), transient()]);

    const outcome = await attemptUnit(opts, work);

    expect(outcome).toMatchObject({ ok: false, failure: { attempts: 3 } });
    expect(calls()).toBe(3);
  });
});
