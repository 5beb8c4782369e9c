// `cloudforet-export check`: everything a first export needs, verified in seconds without
// exporting (functions/lib/faces/check.ts). Its requests are probes: a short deadline and no
// retry of one that got no answer.
import { check } from '../functions/lib/faces/check.ts';
import { cliEntry } from './cli-entry.ts';

export const runCheck = cliEntry(check);
