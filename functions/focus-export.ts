// Lambda entry (and the backfill state machine's Focus state): derive the focus table's FOCUS rows
// of every costs unit that lacks them or changed since, in the event's window (by default this
// month and the previous one) and, for missing ones, anywhere in the destination.
import { lambdaFace } from './lib/faces/face.ts';
import { focusExport } from './lib/faces/focus-export.ts';
import { lambdaEntry } from './lib/lambda/entry.ts';

export const handler = lambdaEntry('focus-export', lambdaFace(focusExport));
