// What a default-window run leaves for the next one, per data source: when it read the job
// history and which finished jobs it saw around then. Cloudforet stamps finished_at with its own
// clock and we stamp jobsReadAt with ours, so jobs finished within a margin before the mark are
// told apart by id rather than by time: no job is missed for a skewed clock or a shared millisecond.

import { JOB_MARKS_PREFIX, jobMarkKey } from '../../destination/layout.ts';
import { forEachLimit } from '../../pool.ts';
import type { Sink } from '../../storage/sink.ts';
import type { SyncJob } from '../sources/source-state.ts';

export interface JobMark {
  readonly dataSourceId: string;
  readonly jobsReadAt: string;
  /** Finished jobs of the data source stamped within MARGIN_MS before jobsReadAt, or after it. */
  readonly seenJobIds: readonly string[];
}

const MARGIN_MS = 15 * 60_000;

/** Jobs finished from `since` on are new unless `seen` names them. */
export function newJobsAfter(mark: JobMark | undefined): { since?: string; seen?: ReadonlySet<string> } {
  if (!mark) return {};
  const since = new Date(Date.parse(mark.jobsReadAt) - MARGIN_MS).toISOString();
  return { since, seen: new Set(mark.seenJobIds) };
}

/**
 * The mark is kept in Cloudforet's clock, not ours: the newest stamp in the job history as read
 * (no later than our own clock), or the epoch when there is no job at all. A local clock hours
 * fast would otherwise put the mark past jobs that finish after the read, and skip them for good.
 */
export function cloudforetReadAt(localNow: string, jobs: readonly SyncJob[]): string {
  let newest = '1970-01-01T00:00:00.000Z';
  for (const j of jobs)
    for (const t of [j.createdAt, j.updatedAt, j.finishedAt]) if (t && t > newest) newest = t;
  return newest < localNow ? newest : localNow;
}

export function markOf(dataSourceId: string, localReadAt: string, jobs: readonly SyncJob[]): JobMark {
  const jobsReadAt = cloudforetReadAt(localReadAt, jobs);
  const { since } = newJobsAfter({ dataSourceId, jobsReadAt, seenJobIds: [] });
  const seenJobIds = jobs
    .filter((j) => j.dataSourceId === dataSourceId && j.status !== 'IN_PROGRESS')
    .filter((j) => (j.finishedAt ?? j.createdAt) >= since!)
    .map((j) => j.jobId);
  return { dataSourceId, jobsReadAt, seenJobIds };
}

/** dataSourceId -> its mark (listed first: no GET of a missing key). */
export async function readJobMarks(sink: Sink): Promise<Map<string, JobMark>> {
  const marks = new Map<string, JobMark>();
  await forEachLimit(await sink.list(JOB_MARKS_PREFIX), 16, async (key) => {
    const mark = parseMark(await sink.read(key));
    if (mark) marks.set(mark.dataSourceId, mark);
  });
  return marks;
}

function parseMark(text: string | undefined): JobMark | undefined {
  try {
    const { dataSourceId, jobsReadAt, seenJobIds } = JSON.parse(text ?? '') as Partial<JobMark>;
    if (typeof dataSourceId !== 'string' || typeof jobsReadAt !== 'string') return undefined;
    const seen = Array.isArray(seenJobIds) ? seenJobIds.filter((id) => typeof id === 'string') : [];
    return { dataSourceId, jobsReadAt, seenJobIds: seen };
  } catch {
    return undefined;
  }
}

export async function writeJobMark(sink: Sink, mark: JobMark): Promise<void> {
  await sink.put(jobMarkKey(mark.dataSourceId), `${JSON.stringify(mark, null, 2)}\n`, 'application/json');
}

/**
 * Records that the job history behind `marks` was handled, for each data source without a failed
 * unit; one with a failure looks at the same jobs again next time. Returns the marks written.
 */
export async function writeJobMarks(
  sink: Sink,
  marks: readonly JobMark[],
  failures: ReadonlyArray<{ dataSourceId: string }>,
): Promise<number> {
  const failed = new Set(failures.map((f) => f.dataSourceId));
  const clean = marks.filter((m) => !failed.has(m.dataSourceId));
  for (const mark of clean) await writeJobMark(sink, mark);
  return clean.length;
}
