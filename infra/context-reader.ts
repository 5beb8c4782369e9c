// Reads one CDK context value at a time and collects every problem, for readSettings.
import { parseWholeNumber } from '../functions/lib/input/whole-number.ts';

export interface ContextReader<SettingKey extends string = string> {
  readonly problems: string[];
  text(key: SettingKey): string | undefined;
  orDefault(key: SettingKey): string;
  check(key: SettingKey, ok: boolean, expected: string): void;
  optional(key: SettingKey, pattern: RegExp, expected: string): string | undefined;
  integer(key: SettingKey, min: number, max: number): number;
}

export function contextReader<SettingKey extends string>(
  context: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<SettingKey, string | number>>,
): ContextReader<SettingKey> {
  const problems: string[] = [];
  const text = (key: SettingKey): string | undefined => {
    const raw = context[key];
    const value = raw === undefined || raw === null ? '' : String(raw).trim();
    return value === '' ? undefined : value;
  };
  const orDefault = (key: SettingKey) => text(key) ?? String(defaults[key]);
  const check = (key: SettingKey, ok: boolean, expected: string) => {
    if (!ok) problems.push(`${key} ${expected} (got ${JSON.stringify(context[key])})`);
  };
  return {
    problems,
    text,
    orDefault,
    check,
    optional: (key, pattern, expected) => {
      const value = text(key);
      if (value !== undefined) check(key, pattern.test(value), expected);
      return value;
    },
    integer: (key, min, max) => {
      const value = parseWholeNumber(orDefault(key), min, max);
      check(key, value !== undefined, `must be a whole number from ${min} to ${max}`);
      return value ?? Number.NaN;
    },
  };
}
