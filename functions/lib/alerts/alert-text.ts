// What every alert message shares: an SNS-safe subject and figures readable in an e-mail.

/** An alert as SNS carries it: the e-mail subject and its plain-text body. */
export interface AlertMessage {
  readonly subject: string;
  readonly body: string;
}

export const SUBJECT_MAX = 100;

/**
 * SNS takes a subject of at most 100 printable ASCII characters with no line break: accents are
 * dropped, any other character becomes '?', and a long subject ends in '...'.
 */
export function snsSubject(text: string): string {
  const ascii = [...text.replace(/\s+/g, ' ').trim()]
    .map((c) => {
      const plain = c.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      return /^[\x20-\x7e]+$/.test(plain) ? plain : '?';
    })
    .join('');
  return ascii.length <= SUBJECT_MAX ? ascii : `${ascii.slice(0, SUBJECT_MAX - 3).trimEnd()}...`;
}

/** 1234.5 -> "1,234.50": two decimals, grouped, for people. */
export function money(n: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** Aligned "Label:  value" lines. */
export function fieldLines(fields: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...fields.map(([label]) => label.length)) + 3;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`);
}
