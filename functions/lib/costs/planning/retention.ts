// Cloudforet keeps daily cost rows for 12 months and answers 400 ERROR_INVALID_DATE_RANGE to a
// DAILY cost/analyze that starts earlier. A range reaching further back is clamped to the first
// retained month (stats are asked by whole months): the days from there on are planned, the
// older ones reported and their archived objects left alone.
import { addDays, daysBetween } from '../../dates.ts';
import { retentionStart } from './job-history.ts';

export interface RetainedWindow {
  /** The part of the range Cloudforet still has; from > to when none of it is. */
  readonly from: string;
  readonly to: string;
  /** Days of the range before retention: not exported, their archived objects kept as they are. */
  readonly beyondRetention: readonly string[];
}

export function clampToRetention(range: { from: string; to: string }, now: Date): RetainedWindow {
  const first = retentionStart(now);
  if (range.from >= first) return { from: range.from, to: range.to, beyondRetention: [] };
  const lastBeyond = range.to < first ? range.to : addDays(first, -1);
  return { from: first, to: range.to, beyondRetention: daysBetween(range.from, lastBeyond) };
}
