import { describe, expect, it } from 'vitest';
import {
  lastSuccessfulJobOf,
  retentionStart,
  sourceJobs,
} from '../../functions/lib/costs/planning/job-history.ts';
import { markOf, newJobsAfter } from '../../functions/lib/costs/planning/job-marks.ts';
import type { SyncJob } from '../../functions/lib/costs/sources/source-state.ts';

const now = new Date('2026-06-20T12:00:00.000Z');
const job = (
  jobId: string,
  status: string,
  createdAt: string,
  from: string,
  finishedAt?: string,
): SyncJob => ({
  jobId,
  dataSourceId: 'ds-a',
  status,
  changedFrom: [from],
  createdAt,
  updatedAt: finishedAt ?? createdAt,
  finishedAt,
});
const opts = { now, staleAfterMs: 4 * 3_600_000 };

describe('sourceJobs', () => {
  it('tells a running sync from a stale one by its age', () => {
    const running = job('job-run', 'IN_PROGRESS', '2026-06-20T11:00:00.000Z', '2026-06');
    const stale = job('job-old', 'IN_PROGRESS', '2026-06-20T07:00:00.000Z', '2026-01');

    const jobs = sourceJobs([running, stale], 'ds-a', opts);

    expect(jobs.running?.jobId).toBe('job-run');
    expect(jobs.stale.map((j) => j.jobId)).toEqual(['job-old']);
    expect(jobs.changedFrom).toBe('2026-01');
  });

  it('re-examines the months of jobs finished since the mark, not those the mark saw', () => {
    const seen = job(
      'job-seen',
      'SUCCESS',
      '2026-06-19T16:00:00.000Z',
      '2026-02',
      '2026-06-19T16:20:00.000Z',
    );
    const failed = job(
      'job-new',
      'FAILURE',
      '2026-06-19T16:10:00.000Z',
      '2026-04',
      '2026-06-19T16:20:00.000Z',
    );
    const mark = markOf('ds-a', '2026-06-19T16:25:00.000Z', [seen]);

    const jobs = sourceJobs([seen, failed], 'ds-a', { ...opts, ...newJobsAfter(mark) });

    expect(mark.seenJobIds).toEqual(['job-seen']);
    expect(jobs.changedFrom).toBe('2026-04');
    expect(sourceJobs([seen, failed], 'ds-a', opts).changedFrom).toBe('2026-02');
  });

  it('names the newest successful job that replaced a day, and none for a day after it ran', () => {
    const older = job('job-1', 'SUCCESS', '2026-06-10T16:00:00.000Z', '2026-01', '2026-06-10T16:20:00.000Z');
    const newer = job('job-2', 'SUCCESS', '2026-06-18T16:00:00.000Z', '2026-06', '2026-06-18T16:20:00.000Z');
    const { successes } = sourceJobs([older, newer], 'ds-a', opts);

    expect(lastSuccessfulJobOf(successes, '2026-06-05')?.jobId).toBe('job-2');
    expect(lastSuccessfulJobOf(successes, '2026-03-05')?.jobId).toBe('job-1');
    expect(lastSuccessfulJobOf(successes, '2026-06-19')).toBeUndefined();
    expect(retentionStart(now)).toBe('2025-07-01');
  });

  it("keeps its mark in Cloudforet's clock: a local clock two hours fast misses no job finished after the read", () => {
    const before = job('job-1', 'SUCCESS', '2026-06-19T16:00:00.000Z', '2026-02', '2026-06-19T16:20:00.000Z');
    // Read at 16:25 Cloudforet time by a machine whose clock says 18:25.
    const mark = markOf('ds-a', '2026-06-19T18:25:00.000Z', [before]);
    const after = job('job-2', 'SUCCESS', '2026-06-19T16:30:00.000Z', '2026-03', '2026-06-19T16:50:00.000Z');

    const jobs = sourceJobs([before, after], 'ds-a', { ...opts, ...newJobsAfter(mark) });

    expect(mark.jobsReadAt).toBe('2026-06-19T16:20:00.000Z');
    expect(jobs.changedFrom).toBe('2026-03');
  });

  it('with no job at all, marks the epoch: the first job to come is new', () => {
    const mark = markOf('ds-a', '2026-06-19T18:25:00.000Z', []);
    const first = job('job-1', 'SUCCESS', '2026-06-19T16:30:00.000Z', '2026-05', '2026-06-19T16:50:00.000Z');

    expect(mark.jobsReadAt).toBe('1970-01-01T00:00:00.000Z');
    expect(sourceJobs([first], 'ds-a', { ...opts, ...newJobsAfter(mark) }).changedFrom).toBe('2026-05');
  });
});
