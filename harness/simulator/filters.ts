// Filter conditions `{key|k, value|v, operator|o}` compiled to predicates with the semantics
// of Cloudforet's MongoDB query builder (array fields match when any element matches).

import { ApiError, dbQueryError, invalidParameter } from './api-error.ts';
import type { ApiRecord } from './world.ts';

export type Predicate = (record: ApiRecord) => boolean;

export interface Condition {
  readonly key: string;
  readonly value: unknown;
  readonly operator: string;
}

const SPELLINGS = [
  ['key', 'k'],
  ['value', 'v'],
  ['operator', 'o'],
] as const;

export function parseCondition(raw: unknown): Condition {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw dbQueryError('Filter condition should be a dict.');
  const item = raw as Record<string, unknown>;
  for (const field of Object.keys(item)) {
    if (!SPELLINGS.some((pair) => (pair as readonly string[]).includes(field))) {
      throw dbQueryError(`Filter condition has an unknown field. (field = ${field})`);
    }
  }
  const [key, value, operator] = SPELLINGS.map(([long, short]) => {
    if (long in item && short in item)
      throw dbQueryError(`Filter condition has both '${long}' and '${short}'.`);
    const found = item[long] ?? item[short];
    if (found === undefined || found === null) throw dbQueryError(`Filter condition should have ${long}.`);
    return found;
  });
  if (typeof key !== 'string' || typeof operator !== 'string')
    throw dbQueryError('Filter key and operator must be strings.');
  return { key, value, operator };
}

/** Reads a dotted path; crossing an array collects the values of its elements. */
export function readPath(record: unknown, segments: readonly string[], from = 0): unknown {
  let current = record;
  for (let i = from; i < segments.length; i++) {
    if (Array.isArray(current)) return current.flatMap((item) => asList(readPath(item, segments, i)));
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segments[i] as string];
  }
  return current;
}

const asList = (value: unknown): unknown[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Omitted defaults read back as the default when compared with a value of that type. */
function withDefault(found: unknown, operand: unknown): unknown {
  if (found !== undefined) return found;
  if (typeof operand === 'number') return 0;
  if (typeof operand === 'boolean') return false;
  return null;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null)
    return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

function compare(found: unknown, operand: unknown): number | undefined {
  if (typeof found === 'number' && typeof operand === 'number') return found - operand;
  if (typeof found === 'string' && typeof operand === 'string')
    return found < operand ? -1 : found > operand ? 1 : 0;
  return undefined;
}

type Test = (value: unknown) => boolean;
const LIST_OPERATORS = new Set(['in', 'not_in', 'contain_in', 'not_contain_in', 'regex_in']);

export function compileCondition(condition: Condition): Predicate {
  const { key, value, operator } = condition;
  if (LIST_OPERATORS.has(operator) && !Array.isArray(value)) {
    throw new ApiError(
      400,
      'ERROR_OPERATOR_LIST_VALUE_TYPE',
      `The value of '${operator} operator' must be a list type. (${JSON.stringify(condition)})`,
    );
  }
  if (!LIST_OPERATORS.has(operator) && Array.isArray(value)) {
    throw new ApiError(
      400,
      'ERROR_OPERATOR_VALUE_TYPE',
      `The value of '${operator} operator' does not support list type. (${JSON.stringify(condition)})`,
    );
  }
  const segments = key.split('.');
  const read = (record: ApiRecord) => readPath(record, segments);
  if (operator === 'exists') {
    if (typeof value !== 'boolean') {
      throw new ApiError(
        400,
        'ERROR_OPERATOR_BOOLEAN_TYPE',
        `The value of 'exists operator' must be a boolean type. (${JSON.stringify(condition)})`,
      );
    }
    return (record) => (read(record) !== undefined) === value;
  }
  const [test, negate] = elementTest(operator, value);
  const operand = Array.isArray(value) ? value[0] : value;
  const matches = (record: ApiRecord) => {
    const found = withDefault(read(record), operand);
    return Array.isArray(found) ? found.some(test) || test(found) : test(found);
  };
  return negate ? (record) => !matches(record) : matches;
}

/** A test on one value, and whether the operator is the negation of that test. */
function elementTest(operator: string, value: unknown): [Test, boolean] {
  switch (operator) {
    case 'eq':
      return [(found) => sameValue(found, value), false];
    case 'not':
      return [(found) => sameValue(found, value), true];
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return [orderTest(operator, (found) => compare(found, value)), false];
    case 'in':
      return [(found) => (value as unknown[]).some((v) => sameValue(found, v)), false];
    case 'not_in':
      return [(found) => (value as unknown[]).some((v) => sameValue(found, v)), true];
    case 'contain':
    case 'match':
      return [containsAny([value]), false];
    case 'not_contain':
      return [containsAny([value]), true];
    case 'contain_in':
      return [containsAny(value as unknown[]), false];
    case 'not_contain_in':
      return [containsAny(value as unknown[]), true];
    case 'regex':
      return [regexAny([value]), false];
    case 'regex_in':
      return [regexAny(value as unknown[]), false];
  }
  if (/^(datetime|timediff)_(lt|lte|gt|gte)$/.test(operator)) return [timeTest(operator, value), false];
  throw dbQueryError(`Filter operator is not supported. (operator = ${operator})`);
}

function orderTest(operator: string, diff: (found: unknown) => number | undefined): Test {
  return (found) => {
    const d = diff(found);
    if (d === undefined) return false;
    if (operator === 'lt') return d < 0;
    if (operator === 'lte') return d <= 0;
    if (operator === 'gt') return d > 0;
    return d >= 0;
  };
}

function containsAny(values: unknown[]): Test {
  const needles = values.map((v) => String(v).toLowerCase());
  return (found) => typeof found === 'string' && needles.some((n) => found.toLowerCase().includes(n));
}

function regexAny(values: unknown[]): Test {
  const patterns = values.map((v) => {
    try {
      return new RegExp(String(v));
    } catch {
      throw dbQueryError(`Invalid regular expression. (value = ${String(v)})`);
    }
  });
  return (found) => typeof found === 'string' && patterns.some((p) => p.test(found));
}

/** Timestamps without a zone are UTC, as Cloudforet stores them. */
export function parseTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) || !text.includes('T') ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? undefined : ms;
}

const UNIT_MS: Record<string, number> = { s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 };

function timediffTarget(value: unknown): number | undefined {
  const match =
    typeof value === 'string' ? /^now(?:([+-])(\d+)([smhdw]))?$/.exec(value.replace(/\s/g, '')) : null;
  if (!match) return undefined;
  const offset = match[1] ? Number(match[2]) * (UNIT_MS[match[3] ?? 's'] ?? 0) : 0;
  return Date.now() + (match[1] === '-' ? -offset : offset);
}

function timeTest(operator: string, value: unknown): Test {
  const timediff = operator.startsWith('timediff');
  const target = timediff ? timediffTarget(value) : parseTime(value);
  if (target === undefined)
    throw invalidParameter(operator, `cannot read a time from ${JSON.stringify(value)}`);
  return orderTest(operator.slice(operator.indexOf('_') + 1), (found) => {
    const ms = parseTime(found);
    return ms === undefined ? undefined : ms - target;
  });
}
