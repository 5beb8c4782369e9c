// Cloudforet keeps daily cost rows for 12 months and answers 400 ERROR_INVALID_DATE_RANGE to a
// DAILY cost/analyze that starts earlier. A range reaching further back is clamped: the days
// Cloudforet still has are planned, the older ones are reported and their archive left alone.
import { addDays, daysBetween } from '../dates.ts';

export const RETENTION_MONTHS = 12;

/** The first day Cloudforet still holds on `today`, with a day's margin for clocks apart. */
export function retentionStart(today: string): string {
  const at = new Date(`${today}T00:00:00Z`);
  const day = at.getUTCDate();
  at.setUTCDate(1);
  at.setUTCMonth(at.getUTCMonth() - RETENTION_MONTHS);
  // 29 Feb or the 31st of a shorter month: the month's last day, not a roll-over.
  const lastOfMonth = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  at.setUTCDate(Math.min(day, lastOfMonth));
  return addDays(at.toISOString().slice(0, 10), 1);
}

export interface RetainedWindow {
  /** The part of the range Cloudforet still has; from > to when none of it is. */
  readonly from: string;
  readonly to: string;
  /** Days of the range before retention: not exported, their archived objects kept as they are. */
  readonly beyondRetention: readonly string[];
}

export function clampToRetention(range: { from: string; to: string }, today: string): RetainedWindow {
  const first = retentionStart(today);
  if (range.from >= first) return { from: range.from, to: range.to, beyondRetention: [] };
  const lastBeyond = range.to < first ? range.to : addDays(first, -1);
  return { from: first, to: range.to, beyondRetention: daysBetween(range.from, lastBeyond) };
}
