// The CLI's help: one text for the whole tool and one per command (`cloudforet-export costs --help`),
// every option with its meaning and default.
import { INVENTORY_TABLE_NAMES } from '../functions/lib/faces/inventory.ts';
import { CLAIM_EXPIRY_MS } from '../functions/lib/faces/release-claim.ts';

const EXPIRY_MIN = CLAIM_EXPIRY_MS / 60_000;

const TENANT = `  --tenant ID              one tenant of a shared --out: its folder tenants/ID/ (env EXPORT_TENANT; default none)`;

const CONNECTION = `Connection (every command):
  --endpoint URL           Cloudforet HTTP API base, https:// (env CLOUDFORET_ENDPOINT)
  --secret-file PATH       the app's 'Download JSON' file or its client_secret (env CLOUDFORET_SECRET_FILE)
  --secret-id ID           the same, from AWS Secrets Manager (env CLOUDFORET_SECRET_ID)
  --timeout SECONDS        limit for each API request, body included, 1-600 (env CLOUDFORET_TIMEOUT_MS in ms; default 60, check 10)
  --give-up-after SECONDS  give up once the endpoint answered nothing this long, 1-86400 (default 60; costs, inventory)
  --max-answer-mb MB       largest API answer taken, 1-1024 (env CLOUDFORET_MAX_ANSWER_MB; default 64)
  --allow-insecure-http    accept an http:// endpoint that is not on this machine (sends the token in clear text)
  --out DIR | s3://bucket/prefix   where data goes (env EXPORT_DESTINATION)
${TENANT}`;

export const EXIT_CODES = `Exit codes: 0 every unit exported; 1 a unit or table failed (the rest are written);
2 bad usage or configuration (options, dates, endpoint, secret, destination, a range wholly past
retention): nothing was exported; 130 / 143 stopped by Ctrl-C / SIGTERM (finished units are
written, the rest untouched; rerun to finish).
Environment: LOG_LEVEL debug|info|warn|error (default warn), LOG_FORMAT text|json (default text).`;

const CONCURRENCY = (what: string) => `  --concurrency N          ${what} at once, 1-64 (default 4)`;
const JSON_OUTPUT =
  '  --json                   print the summary as one JSON object on stdout (default: lines for people)';

const INVENTORY_TABLES = wrap(INVENTORY_TABLE_NAMES.join(', '), 96);

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}

export const commandUsage = {
  costs: `Usage: cloudforet-export costs [connection] [--date YYYY-MM-DD | --from YYYY-MM-DD --to YYYY-MM-DD]
                              [--data-source ID]... [--force] [--verify] [--cost-reports]
                              [--concurrency N] [--json]
Exports cost rows per unit (data source × day), and the unified-cost months they cover. Without a
date: this month and the previous one (UTC) plus every month a Cloudforet sync changed since the
last export, only the days that are new or changed (row count and cost sum per project, workspace
and service account). A published object that is not what its manifest says (missing, resized, a
new ETag, a file changed since) is exported again.
Options:
  --date YYYY-MM-DD        one day (UTC); not with --from/--to. Any day here may also be
                           today-N: N days before today (UTC), e.g. --date today-1
  --from YYYY-MM-DD        first day of a range (with --to; both included); days before
                           Cloudforet's 12-month retention are reported, not exported
  --to YYYY-MM-DD          last day of the range, today at the latest
  --data-source ID         only this cost data source; repeat for more (default: every one the app sees)
  --force                  export every day asked for, changed or not (default: only new or changed days)
  --verify                 walk the whole destination (directory or S3), every table: read every
                           object back and compare its SHA-256 with its manifest, every FOCUS unit
                           with its costs object, every archived statement with its record; repair
                           what Cloudforet still has, name the rest (default: listings only)
  --cost-reports           also archive Cloudforet's cost reports, their rows, statuses and
                           adjustments, as the scheduled export does (docs/cost-reports.md)
${CONCURRENCY('units exported')}
${JSON_OUTPUT}
${CONNECTION}
${EXIT_CODES}`,
  inventory: `Usage: cloudforet-export inventory [connection] [--snapshot-date YYYY-MM-DD] [--include-inactive]
                                  [--concurrency N] [--json]
Snapshots the inventory, identity tables and budgets, one object per table:
${INVENTORY_TABLES}.
Options:
  --snapshot-date YYYY-MM-DD   today (UTC), the default: Cloudforet lists its inventory only as
                               it is now, so any other day is refused (exit 2)
  --include-inactive       also DISCONNECTED and DELETED cloud services (default: ACTIVE only)
${CONCURRENCY('tables exported')}
${JSON_OUTPUT}
${CONNECTION}
${EXIT_CODES}`,
  check: `Usage: cloudforet-export check [connection]
Checks, in seconds and without exporting: the endpoint answers, the secret (expiry, role, workspace),
the data sources the app can see, and that the destination takes a write (a small object, removed).
Each request waits 10 s at most (or --timeout) and one that gets no answer is not retried.
${CONNECTION}
${EXIT_CODES}`,
  anomalies: `Usage: cloudforet-export anomalies --out (DIR | s3://bucket/prefix) [--json]
Judges each exported cost day per data source, project, workspace and service account against the
median of its previous 28 days (at least 14 needed): a day at 2x or more of it, far outside the
usual swing (5 robust standard deviations), is an anomaly; finer scopes also need an increase of
5 % of their data source's daily total. Days from the data source's last sync on are not judged.
Reads what 'costs' exported (its manifests): no Cloudforet request. Exits 0 with or without
anomalies (2 when nothing was exported there). Method: docs/anomalies.md.
Options:
  --out DIR | s3://bucket/prefix   the destination 'costs' exported to (env EXPORT_DESTINATION)
${TENANT}
  --json                   print {"anomalies":[...], ...} as one JSON object (default: lines for people)
${EXIT_CODES}`,
  statements: `Usage: cloudforet-export statements --month YYYY-MM --out (DIR | s3://bucket/prefix) [--currency USD|KRW|JPY] [--json]
Writes one CSV (RFC 4180 line items: workspace_id, project_id, project_name, provider, product,
data_source_id, service_account_id, origin_currency, cost) and one HTML page per workspace with
costs in the month to DIR/statements/billed_month=YYYY-MM/<workspace_id>.csv|.html; costs with no
workspace go to unassigned.csv|.html. Reads the unified costs 'costs' exported under DIR: each
workspace's costs add up to its unified-cost total. No Cloudforet request. A statement the
statements function archived is never rewritten: a changed one gets <workspace_id>.rN.csv beside it.
Options:
  --month YYYY-MM          the billed month of the statements (required); may also be
                           this-month-N: N months before this one (UTC), e.g. this-month-1
  --currency CODE          USD, KRW or JPY, at the month's rates (default USD)
  --out DIR | s3://bucket/prefix   the destination 'costs' exported to (env EXPORT_DESTINATION)
${TENANT}
  --json                   print a summary of the statements written as one JSON object (default: lines for people)
${EXIT_CODES}`,
  'release-claim': `Usage: cloudforet-export release-claim --out (DIR | s3://bucket/prefix) [--force]
Releases the claim a killed run left on a destination (the run's domain and cost scope, in
_destination.json), so that another scope may export there now. Only a claim whose holder exported
nothing there is released: one that did is an ownership, and another scope exports into its own
prefix. A claim also expires by itself ${EXPIRY_MIN} min after its holder's latest run started, and the next
run takes it over. No Cloudforet request. Exits 0 when released or when there is none, 2 when refused.
Options:
  --out DIR | s3://bucket/prefix   the destination whose claim to release (env EXPORT_DESTINATION)
${TENANT}
  --force                  release it although its holder's latest run started less than ${EXPIRY_MIN} min ago
                           (default: only an expired claim); say it only when no run of it is going
${EXIT_CODES}`,
  'as-of': `Usage: cloudforet-export as-of --out (DIR | s3://bucket/prefix) --table costs|focus --at INSTANT [--from YYYY-MM-DD --to YYYY-MM-DD] [--json]
Prints a table exactly as a reader saw it at INSTANT (ISO 8601, e.g. 2026-10-03T00:00:00Z): for each
day and data source, the rows of the object current then, whether it is still current or was since
replaced by a restatement (kept for good under <table>_revisions/). The saved queries costs_as_of and
focus_as_of answer the same in Athena. No Cloudforet request; reads every object of the days asked.
Options:
  --table costs|focus      the table to read (required: no default)
  --at INSTANT             the instant, ISO 8601 with its zone, Z for UTC (required: no default)
  --from YYYY-MM-DD        the first day read (default: every day exported); either day may
                           also be today-N: N days before today (UTC), e.g. --from today-7
  --to YYYY-MM-DD          the last day read (default: every day exported)
  --out DIR | s3://bucket/prefix   the destination 'costs' exported to (env EXPORT_DESTINATION)
${TENANT}
  --json                   print one JSON object: the table, the instant and its rows (default: a line a row)
${EXIT_CODES}`,
  'move-into-tenant': `Usage: cloudforet-export move-into-tenant --out (DIR | s3://bucket/prefix) --tenant ID [--delete-source] [--force] [--json]
Moves a single-domain destination (what a stack without tenants, or 'costs' without --tenant,
wrote under --out) into the tenant folder tenants/ID/ of the same --out, where a stack with tenants
writes tenant ID: every object copied and read back (SHA-256, compared per object), manifests
rewritten only where the copy's ETag or mtime differs (S3 gives an object uploaded in parts a new
ETag when copied), so that the tenant's runs export nothing again. Refused before any write when
--out holds no single-domain destination, tenants/ID/ holds anything but this move, or a run may
still be writing. Killed, the same command finishes the move. No Cloudforet request.
Options:
  --out DIR | s3://bucket/prefix   the single-domain destination (env EXPORT_DESTINATION)
  --tenant ID              the tenant to move it into: its folder tenants/ID/ of --out (required: no default)
  --delete-source          once every copy is verified, delete the source, each object only while it
                           reads back as its verified copy (default: the source is kept)
  --force                  move although the latest run into --out started less than ${EXPIRY_MIN} min ago
                           (default: refused, it may still be writing); say it only when none is going
${JSON_OUTPUT}
${EXIT_CODES}`,
} as const;

export type CommandName = keyof typeof commandUsage;
export const commandNames = Object.keys(commandUsage) as CommandName[];

export const usage = `Usage: cloudforet-export COMMAND [options]
Commands:
  costs       export cost rows for a day or a range
  inventory   export an inventory snapshot
  check       check the endpoint, the secret and the destination without exporting
  anomalies   cost anomalies in what 'costs' exported (reads --out only)
  statements  a monthly statement per workspace, CSV and HTML (reads --out only)
  release-claim  release the destination claim a killed run left (reads --out only)
  as-of       a table exactly as a reader saw it at an instant (reads --out only)
  move-into-tenant  move a single-domain destination into a tenant folder of it (reads --out only)
Run cloudforet-export COMMAND --help for a command's options; --version prints the version.
${CONNECTION}
${EXIT_CODES}`;
