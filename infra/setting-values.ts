// Checks and parsers for single setting values, each a pure function of one string.

export const GiB = 1024 ** 3;

const CRON_FIELD = /^[0-9A-Za-z*?,/#LW-]+$/;
const RATE = /^rate\(\s*[1-9]\d*\s+(minute|minutes|hour|hours|day|days)\s*\)$/;
const BYTE_UNITS: Record<string, number> = {
  '': 1,
  B: 1,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  MiB: 1024 ** 2,
  GiB,
  TiB: 1024 ** 4,
};

export function isPrefix(value: string): boolean {
  return (
    /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(value) &&
    !/(^|\/)\.\.?(\/|$)/.test(value) &&
    !value.startsWith('athena-results')
  );
}

/** An https URL: the functions send the client secret with every request. */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

export function isScheduleExpression(value: string): boolean {
  if (RATE.test(value)) return true;
  const cron = /^cron\((.*)\)$/.exec(value);
  if (!cron) return false;
  const fields = cron[1]!.trim().split(/\s+/);
  if (fields.length !== 6 || !fields.every((f) => CRON_FIELD.test(f))) return false;
  const [, , dayOfMonth, , dayOfWeek] = fields;
  return (dayOfMonth === '?') !== (dayOfWeek === '?');
}

/** A real calendar day as YYYY-MM-DD. */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function isBucketName(value: string): boolean {
  return (
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value) &&
    !value.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(value)
  );
}

/** Bytes from '10737418240', '10GiB' or '500MB'; NaN when unreadable. */
export function parseBytes(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(value);
  const unit = match ? BYTE_UNITS[match[2]!] : undefined;
  return match && unit !== undefined ? Math.round(Number(match[1]) * unit) : Number.NaN;
}
