// `cloudforet-export anomalies --out DIR`: cost anomalies per data source, project, workspace and
// service account, judged from what `costs` exported under DIR (its manifests; no Cloudforet
// request). Exits 0 whether or not it finds any; prints one JSON object with --json.
import { anomalies } from '../functions/lib/faces/anomalies.ts';
import { cliEntry } from './cli-entry.ts';

export const runAnomalies = cliEntry(anomalies);
