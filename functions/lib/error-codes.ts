// Every error code the exporter gives (an ExportError's `code`, a unit failure's `code` in a run
// summary), declared once with its meaning and whether it is retried. docs/errors.md is generated
// from this list (`npm run error-docs`), and test/unit/error-codes.test.ts fails when a code in
// functions/ or cli/ is missing here. The throw sites still spell their codes; this is the index.

/**
 * yes: the unit is attempted again within the run (and Step Functions retries a backfill unit);
 * no: nothing changes until the cause is fixed; depends: on the answer (said in the meaning).
 */
export type Retry = 'yes' | 'no' | 'depends';

export interface ErrorCode {
  /** The code, or a family of codes with a <placeholder> part. */
  readonly code: string;
  readonly retry: Retry;
  readonly meaning: string;
}

const code = (c: string, retry: Retry, meaning: string): ErrorCode => ({ code: c, retry, meaning });

const CLOUDFORET: readonly ErrorCode[] = [
  code(
    'CLOUDFORET_<API code>',
    'depends',
    'Cloudforet answered an error with its own code (e.g. CLOUDFORET_ERROR_AUTHENTICATE_FAILURE); retried when the status is 429 or 5xx',
  ),
  code(
    'CLOUDFORET_HTTP_<status>',
    'depends',
    'an HTTP error without a Cloudforet code; retried on 429 and 5xx',
  ),
  code(
    'CLOUDFORET_NETWORK',
    'depends',
    'no answer: retried, unless the host name does not resolve, TLS does not match or the certificate is refused',
  ),
  code(
    'CLOUDFORET_DOMAIN_UNKNOWN',
    'no',
    'the endpoint does not know the domain the client_secret names (ERROR_NOT_FOUND for its domain_id): an app of another Cloudforet or another domain',
  ),
  code('CLOUDFORET_DEADLINE', 'yes', 'the whole request, headers and body, outlasted its deadline'),
  code(
    'CLOUDFORET_SILENT',
    'yes',
    'the endpoint answered nothing for --give-up-after seconds (CLI); the run gave up instead of retrying',
  ),
  code(
    'CLOUDFORET_ANSWER_TOO_LARGE',
    'yes',
    'an answer longer than the limit (--max-answer-mb), dropped unread',
  ),
  code(
    'CLOUDFORET_NOT_AN_ANSWER',
    'yes',
    'a body that is no Cloudforet answer (a proxy or gateway error page)',
  ),
  code(
    'CLOUDFORET_NO_DATA_SOURCES',
    'yes',
    'cost-analysis/data-source/list answered no data sources while the destination holds the costs of some: an empty answer (`{}` from a proxy) proves nothing, so nothing is exported and the run fails',
  ),
  code('PAGING_DRIFT', 'yes', 'the data changed under a paging run (total_count moved, an id came twice)'),
  code(
    'ACCOUNT_LINKS_MISSING',
    'yes',
    'a cost row carries a virtual workspace but no account link came back: the published rows are kept',
  ),
];

const SECRET: readonly ErrorCode[] = [
  code('SECRET_FETCH_FAILED', 'no', 'Secrets Manager refused or failed to give the secret'),
  code('SECRET_EMPTY', 'no', 'the secret or the secret file holds no text'),
  code('SECRET_FILE_UNREADABLE', 'no', 'the --secret-file cannot be read'),
  code(
    'SECRET_FILE_TOO_LARGE',
    'no',
    'the --secret-file is longer than 64 KiB (a device such as /dev/zero?)',
  ),
  code('SECRET_FILE_ENCODING', 'no', 'the secret file is UTF-16, not UTF-8'),
  code('SECRET_FILE_COMPRESSED', 'no', 'the secret file is gzip-compressed or a zip archive'),
  code('SECRET_INVALID_JSON', 'no', 'the secret starts like JSON but does not parse'),
  code('SECRET_JSON_NO_CLIENT_SECRET', 'no', "the secret's JSON has no client_secret field"),
  code('SECRET_NOT_A_JWT', 'no', 'the client_secret is not a JWT'),
  code('SECRET_MISSING_CLAIMS', 'no', 'the token lacks the claims of a Cloudforet app (did, wid, rol, exp)'),
  code('SECRET_EXPIRED', 'no', 'the client_secret has expired: make a new one in the Cloudforet console'),
];

const EVENT: readonly ErrorCode[] = [
  code('CONFIG_INVALID', 'no', 'environment variables missing or invalid (every problem in one message)'),
  code('CLI_USAGE', 'no', 'a command line the CLI cannot run (exit code 2)'),
  code('EVENT_NOT_OBJECT', 'no', 'the event is not a JSON object'),
  code('EVENT_UNKNOWN_KEYS', 'no', 'the event has keys the function does not take'),
  code(
    'EVENT_BAD_DATE',
    'no',
    'a day that is neither YYYY-MM-DD nor `today-N` (where an event takes either)',
  ),
  code('EVENT_DATE_AND_RANGE', 'no', 'both "date" and "from"/"to"'),
  code('EVENT_RANGE_INCOMPLETE', 'no', '"from" without "to", or the reverse'),
  code('EVENT_RANGE_REVERSED', 'no', '"from" after "to"'),
  code('EVENT_RANGE_TOO_LONG', 'no', 'more days than one invocation exports: use the backfill or the CLI'),
  code('EVENT_DATE_IN_FUTURE', 'no', 'a day after today (UTC)'),
  code(
    'EVENT_SNAPSHOT_NOT_TODAY',
    'no',
    'an inventory snapshot dated before today: Cloudforet lists its inventory only as it is now',
  ),
  code('EVENT_BEYOND_RETENTION', 'no', "days wholly before Cloudforet's 12 months of daily costs"),
  code('EVENT_BAD_DATA_SOURCE_IDS', 'no', '"dataSourceIds" is not a non-empty list of ids'),
  code('EVENT_BAD_FORCE', 'no', '"force" is not true or false'),
  code('EVENT_BAD_INCLUDE_INACTIVE', 'no', '"includeInactive" is not true or false'),
  code('EVENT_BAD_MONTH', 'no', '"month" is not a past month as YYYY-MM or this-month-N'),
  code('EVENT_BAD_CURRENCY', 'no', '"currency" is not a supported currency'),
  code('EVENT_BAD_TABLE', 'no', '"table" is not a table the as-of read knows (costs, focus)'),
  code('EVENT_BAD_AT', 'no', '"at" is not an ISO 8601 instant'),
  code(
    'EVENT_BAD_PLAN',
    'no',
    "a cost job state's event is not the Plan state's output, or its job's state is gone",
  ),
  code('EVENT_BAD_UNIT', 'no', "a backfill unit's event is not one the plan step wrote"),
  code(
    'EVENT_UNKNOWN_TENANT',
    'no',
    '"tenant" names no tenant of the stack (the message lists them), or the stack has no tenants',
  ),
  code('EVENT_BAD_TENANT', 'no', '"tenant" is missing or no tenant id (move-into-tenant)'),
  code('EVENT_TENANT_MISSING', 'no', 'a stack of tenants got an event that names no "tenant"'),
  code('UNKNOWN_DATA_SOURCE', 'no', 'a data source id the app does not see'),
];

const DESTINATION: readonly ErrorCode[] = [
  code('DESTINATION_INVALID', 'no', '--out or the bucket names no S3 bucket or usable folder'),
  code('DESTINATION_CLAIM_UNREADABLE', 'no', "the destination's claim file is not one this tool wrote"),
  code(
    'DESTINATION_CLAIM_HELD',
    'no',
    'release-claim refused: the holder may still be running, or exported there',
  ),
  code(
    'MOVE_REFUSED',
    'no',
    'move-into-tenant refused before writing: the source is no single-domain destination, the tenant folder holds another, or a run may be writing',
  ),
  code(
    'MOVE_SOURCE_CHANGED',
    'no',
    'move-into-tenant: the source changed while it was copied (a run wrote there); nothing is deleted, run it again',
  ),
  code(
    'MOVE_COPY_MISMATCH',
    'no',
    'move-into-tenant: a copy read back other bytes than written; the source is kept, run it again',
  ),
  code('DESTINATION_SCOPE_MISMATCH', 'no', 'the destination holds another scope (domain or workspace)'),
  code('SINK_S3_FAILED', 'no', 'an S3 request failed; the message names the cause and the remedy'),
  code('SINK_LOCAL_FAILED', 'no', 'a file of a local destination could not be read or written'),
  code('SNS_PUBLISH_FAILED', 'no', 'the alerts topic refused a message; the alert is sent on the next run'),
];

const UNITS: readonly ErrorCode[] = [
  code(
    'UNIT_INTERRUPTED',
    'yes',
    'the run stopped the unit (deadline or signal); its previous object is untouched',
  ),
  code(
    'UNIT_UNREPORTED',
    'yes',
    'a scheduled unit left no report (its invocation died, or the Map never ran it): the next run exports it again',
  ),
  code(
    'EMPTY_ANSWER_CONTRADICTED',
    'yes',
    'a listing answered empty where another verb counts rows: the published object is kept',
  ),
  code(
    'COST_REPORT_DATA_UNANSWERED',
    'no',
    "a cost report's data rows answered none (a report has at least one): the report is not archived this run, its published files are kept, and the next run asks again",
  ),
  code(
    'REMOVAL_UNPROVEN',
    'no',
    'a listing answered empty and nothing proves the day empty: the published object is kept',
  ),
  code(
    'FOCUS_NAMES_MISSING',
    'no',
    'names for FOCUS rows were missing: the published FOCUS rows are kept; rerun',
  ),
  code('FOCUS_SOURCE_MISSING', 'no', 'a costs object named by its manifest is not there'),
  code(
    'FOCUS_SOURCE_DAMAGED',
    'no',
    "a costs object does not match its manifest's checksum; the next cost run repairs it",
  ),
  code('FOCUS_ROWS_DIFFER', 'no', 'a costs object holds another number of rows than its manifest counts'),
  code(
    'COMPACTION_SOURCE_DAMAGED',
    'no',
    "a daily object of a confirmed month does not match its manifest's checksum; the month stays read from its days",
  ),
  code(
    'COMPACTION_DAY_MISSING',
    'no',
    'a compacted month holds a day whose daily manifest (or object) is missing, or names no object without a proven removal: the monthly object and manifest are kept as they are until the day is restored or re-exported',
  ),
  code(
    'COMPACTION_MONTH_DIFFERS',
    'no',
    "a cost row's billed_month is not the month of its billed_date; that month stays read from its days",
  ),
  code(
    'COMPACTION_ROWS_DIFFER',
    'no',
    "a confirmed month's daily objects hold another number of rows than their manifests count",
  ),
  code('STATEMENT_CURRENCY', 'no', "a month's statements are archived in another currency"),
  code(
    'ARCHIVE_RACE',
    'yes',
    'an archived object (a statement) already holds other content: it is kept as first written',
  ),
  code('RUN_FAILED', 'no', 'some units or tables of a run did not export (each named with its own code)'),
  code('UNEXPECTED', 'no', 'an error without a code: a bug, or a library failing in a way not yet named'),
];

/** The catalogue, in the order of docs/errors.md. */
export const ERROR_CATALOGUE: ReadonlyArray<{
  readonly title: string;
  readonly codes: readonly ErrorCode[];
}> = [
  { title: 'Cloudforet', codes: CLOUDFORET },
  { title: 'The secret', codes: SECRET },
  { title: 'Configuration, command line and events', codes: EVENT },
  { title: 'Destination and delivery', codes: DESTINATION },
  { title: 'Units and runs', codes: UNITS },
];

/** Every code declared one by one (the families with a <placeholder> left out). */
export function declaredCodes(): Set<string> {
  return new Set(
    ERROR_CATALOGUE.flatMap(({ codes }) => codes.map((c) => c.code)).filter((c) => !c.includes('<')),
  );
}
