// The first-export check's face, `cloudforet-export check`: everything a first export needs,
// verified in seconds without exporting: the secret, the endpoint and the app's view of it, and a
// write to the destination. It runs on a probe session (a short deadline, no retry of a request
// that got no answer) and says each line as it goes, so a failure shows what passed before it.
import { randomUUID } from 'node:crypto';
import { isNoAnswer } from '../cloudforet/explain.ts';
import { listDataSources } from '../costs/sources/data-sources.ts';
import { ownScratch, removeProven } from '../destination/gate.ts';
import { TEMP_DIR } from '../destination/layout.ts';
import { CloudforetApiError } from '../errors.ts';
import { eventFields } from '../input/event-shape.ts';
import { type CloudforetConnection, connectCloudforet } from '../lambda/connect-cloudforet.ts';
import type { Face } from './face.ts';

const DAY_MS = 86_400_000;

export interface CheckResult {
  readonly daysLeft: number;
  readonly dataSources: number;
}

export const check: Face<CloudforetConnection, Record<string, never>, CheckResult> = {
  label: 'check',
  needs: 'probe',
  connect: connectCloudforet,
  parse: (input) => {
    eventFields(input, [], '{}');
    return {};
  },
  run: async ({ session, sink, say = () => {} }) => {
    const { credential } = session;
    const daysLeft = Math.floor((credential.expiresAt.getTime() - Date.now()) / DAY_MS);
    say(
      `secret   ok: ${credential.source}, ${session.scope}, role ${credential.role}, ` +
        `expires ${credential.expiresAt.toISOString().slice(0, 10)} (in ${daysLeft} days)`,
    );
    const dataSources = await listDataSources(session.client).catch((error: unknown) => {
      throw noAnswerHint(error, session.client.endpoint);
    });
    const names = dataSources.map((d) => `${d.id} (${d.name})`).join(', ');
    say(
      `endpoint ok: ${session.client.endpoint} answers; ${dataSources.length} cost data sources visible` +
        (dataSources.length > 0
          ? `: ${names}`
          : ': costs would export nothing (does the app see the right workspace?)'),
    );
    const key = `_check/${randomUUID()}.txt`;
    await sink.put(key, 'cloudforet-export check: safe to delete\n', 'text/plain');
    await removeProven(sink, key, ownScratch('the probe check just wrote'));
    await sink.removeEmptyFolders?.(['_check', TEMP_DIR]);
    say(`output   ok: ${sink.location} takes a write (a test object, written and removed)`);
    return { daysLeft, dataSources: dataSources.length };
  },
  // Said line by line as the run goes.
  describe: () => [],
  figures: () => ({}),
};

/** A silent endpoint, said as check sees it: one try, and what that usually means. */
function noAnswerHint(error: unknown, endpoint: string): unknown {
  if (!(error instanceof CloudforetApiError) || !isNoAnswer(error)) return error;
  return new CloudforetApiError(
    {
      code: error.code,
      path: error.path,
      retryable: error.retryable,
      message:
        `endpoint ${endpoint} did not answer: ${error.message.replace(/^cloudforet: /, '')}. ` +
        'check tries once and gives up (an export would retry); is this the HTTP API base and not the console web address?',
    },
    { cause: error },
  );
}
