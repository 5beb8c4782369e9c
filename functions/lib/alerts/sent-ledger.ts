// The sent-alerts ledger at the destination, and the one way an alert is sent: claim the next
// version of the alert (created only if absent, so of two runs racing exactly one sends it),
// publish, then confirm. A publish that fails releases the claim: the ledger never says an alert
// went out that SNS refused, and the next run sends it. A run that dies between claim and
// confirmation leaves a claim that blocks others for STALE_CLAIM_MS, then counts as abandoned and
// the alert is sent again: at most once while runs survive, at least once when one dies mid-way.

import { createOnce, ownScratch, removeProven } from '../destination/gate.ts';
import { alertClaimKey, alertPrefix, alertSentKey } from '../destination/layout.ts';
import { redactValue } from '../redact/redact.ts';
import type { Sink } from '../storage/sink.ts';
import type { AlertMessage } from './alert-text.ts';

/** Longer than the longest Lambda run (15 minutes): a claim this old has no live run behind it. */
export const STALE_CLAIM_MS = 20 * 60_000;

/** A restated figure alerts again when it moves by more than this share of the figure alerted… */
export const MATERIAL_SHARE = 0.1;
/** …and by at least this much (one unit of the currency), so that rounding never alerts. */
export const MATERIAL_MINIMUM = 1;
/** An anomaly's figure: the data source's own cost of the day (before 0.x: the headline's actual). */
export const DAY_TOTAL = 'day-total';

export interface Alert {
  /** Who the alert is, as ledger key parts: ['anomaly', day, data source, scope, key]. */
  readonly id: readonly string[];
  /** The figure a restatement is compared on (an anomaly's day total); undefined: sent once, ever. */
  readonly figure?: number;
  /** What the figure is; a claim whose figure was something else is never compared with it. */
  readonly basis?: string;
  message(previous: { figure?: number } | undefined): AlertMessage;
}

export type Publish = (message: AlertMessage) => Promise<string>;

export type SendOutcome =
  | {
      readonly outcome: 'sent';
      readonly version: number;
      readonly messageId: string;
      readonly subject: string;
    }
  | { readonly outcome: 'already sent' | 'in flight' }
  | { readonly outcome: 'failed'; readonly error: unknown };

interface Claim {
  readonly figure?: number;
  readonly basis?: string;
  readonly subject: string;
  readonly claimedAt: string;
  readonly runId?: string;
}

export function isMaterialChange(alerted: number, now: number): boolean {
  const change = Math.abs(now - alerted);
  return change > MATERIAL_SHARE * Math.abs(alerted) && change >= MATERIAL_MINIMUM;
}

export async function sendOnce(
  deps: { readonly sink: Sink; readonly publish: Publish; readonly now: Date; readonly runId?: string },
  alert: Alert,
): Promise<SendOutcome> {
  const { sink } = deps;
  const keys = new Set(await sink.list(alertPrefix(alert.id)));
  let last = 0;
  while (keys.has(alertClaimKey(alert.id, last + 1))) last++;
  let previous: Claim | undefined;
  const wasSent = keys.has(alertSentKey(alert.id, last));
  if (last > 0) {
    previous = JSON.parse((await sink.read(alertClaimKey(alert.id, last))) ?? '{}') as Claim;
    if (wasSent) {
      const changed =
        alert.figure !== undefined &&
        previous.figure !== undefined &&
        previous.basis === alert.basis &&
        isMaterialChange(previous.figure, alert.figure);
      if (!changed) return { outcome: 'already sent' };
    } else if (deps.now.getTime() - Date.parse(previous.claimedAt) < STALE_CLAIM_MS) {
      return { outcome: 'in flight' };
    }
  }
  const version = last + 1;
  const message = redactValue(alert.message(previous && wasSent ? { figure: previous.figure } : undefined));
  const claim: Claim = {
    figure: alert.figure,
    ...(alert.basis !== undefined && { basis: alert.basis }),
    subject: message.subject,
    claimedAt: deps.now.toISOString(),
    runId: deps.runId,
  };
  const claimKey = alertClaimKey(alert.id, version);
  if ((await createOnce(sink, claimKey, JSON.stringify(claim), 'application/json')) !== 'created') {
    return { outcome: 'in flight' };
  }
  let messageId: string;
  try {
    messageId = await deps.publish(message);
  } catch (error) {
    await removeProven(sink, claimKey, ownScratch('the claim of an alert this run failed to publish'));
    return { outcome: 'failed', error };
  }
  await sink.put(
    alertSentKey(alert.id, version),
    JSON.stringify({ messageId, sentAt: new Date().toISOString() }),
    'application/json',
  );
  return { outcome: 'sent', version, messageId, subject: message.subject };
}
