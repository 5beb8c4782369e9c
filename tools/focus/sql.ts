// A model Check as DuckDB SQL. Two readings of the same Check:
// - as a Requirement, `violation` is a predicate true for the rows that break it;
// - as a Condition, `scope` is a predicate true for the rows the rule is about.
// The SQL of each CheckFunction follows the validator's generator for it
// (focus_validator/config_objects/focus_to_duckdb_converter.py, v2.0.1, named per function below),
// written anew; where it differs on purpose the comment says why. NULL handling is the validator's:
// a NULL value breaks a value check only when the check is about NULL.
import { readFileSync } from 'node:fs';
import { type Check, CURRENCY_CODES_PATH } from './model.ts';

export class UnsupportedCheck extends Error {}

export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return `'${String(value).replaceAll("'", "''")}'`;
}

/** A predicate that is never NULL: NULL (unknown) counts as false. */
function sure(predicate: string): string {
  return `coalesce((${predicate}), false)`;
}

function column(
  check: Check,
  key: 'ColumnName' | 'ColumnAName' | 'ColumnBName' | 'ResultColumnName',
): string {
  const name = check[key];
  if (typeof name !== 'string' || name === '') {
    throw new UnsupportedCheck(
      `${check.CheckFunction} without ${key} (the model gives ${JSON.stringify(check)})`,
    );
  }
  return name;
}

/** The columns a Check reads. */
export function checkColumns(check: Check): string[] {
  if (check.CheckFunction === 'AND' || check.CheckFunction === 'OR')
    return (check.Items ?? []).flatMap(checkColumns);
  return (['ColumnName', 'ColumnAName', 'ColumnBName', 'ResultColumnName'] as const)
    .map((key) => check[key])
    .filter((name): name is string => typeof name === 'string');
}

const TIMESTAMP_TYPES =
  "('TIMESTAMP', 'TIMESTAMP_NS', 'TIMESTAMP_MS', 'TIMESTAMP_S', 'TIMESTAMP WITH TIME ZONE', 'DATE')";
/** DateTimeFormat-A-003-M: 'YYYY-MM-DDTHH:mm:ssZ' (the validator's TypeDateTime pattern). */
const ISO_UTC = `[0-9]{4}-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z`;

/**
 * ISO 4217 codes that are not a government-issued currency (FOCUS glossary, "National Currency"),
 * though list one carries them: BillingCurrency-C-006-M needs national currency. The validator's
 * CheckNationalCurrency accepts the whole list, 'XXX' included.
 */
export const NOT_NATIONAL = {
  XXX: 'no currency',
  XTS: 'reserved for testing',
  XAU: 'gold',
  XAG: 'silver',
  XPT: 'platinum',
  XPD: 'palladium',
  XDR: 'IMF special drawing right',
  XBA: 'bond market unit',
  XBB: 'bond market unit',
  XBC: 'bond market unit',
  XBD: 'bond market unit',
  XSU: 'Sucre (ALBA unit of account)',
  XUA: 'ADB unit of account',
  BOV: 'fund code (Mvdol)',
  CHE: 'fund code (WIR euro)',
  CHW: 'fund code (WIR franc)',
  CLF: 'fund code (Unidad de Fomento)',
  COU: 'fund code (Unidad de Valor Real)',
  MXV: 'fund code (Unidad de Inversion)',
  USN: 'fund code (US dollar next day)',
  UYI: 'fund code (Uruguay peso en unidades indexadas)',
  UYW: 'fund code (Unidad previsional)',
} as const;

let nationalCodes: string[] | undefined;
export function nationalCurrencies(): string[] {
  nationalCodes ??= readFileSync(CURRENCY_CODES_PATH, 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split(',')[1]?.trim() ?? '')
    .filter((code) => /^[A-Z]{3}$/.test(code) && !(code in NOT_NATIONAL))
    .sort();
  return nationalCodes;
}

/** UnitFormat-A-001..004 (specification/attributes/unit_format.md): the shapes a unit may take. */
function unitPattern(): string {
  const size = 'b|Kb|Mb|Gb|Tb|Pb|Eb|B|KB|MB|GB|TB|PB|EB|Kib|Mib|Gib|Tib|Pib|Eib|KiB|MiB|GiB|TiB|PiB|EiB';
  const timeOne = 'Year|Month|Day|Hour|Minute|Second';
  const timeMany = 'Years|Months|Days|Hours|Minutes|Seconds';
  // "A new count-based unit value MUST be capitalized"; words may be joined by spaces ("API Requests").
  const count = '[A-Z][A-Za-z0-9]*(?: [A-Z][A-Za-z0-9]*)*';
  const units = `(?:${size}|${count})`;
  return [
    `${units}`, // <plural-units>
    `(?:${size}|${count})-(?:${timeMany})`, // <singular-unit>-<plural-time-units>
    `${units}/(?:${timeOne})`, // <plural-units>/<singular-time-unit>
    `[0-9]+ ${units}`, // <quantity> <plural-units>
    `${units}/[0-9]+ (?:${timeMany})`, // <plural-units>/<interval> <plural-time-units>
  ]
    .map((shape) => `(?:${shape})`)
    .join('|');
}

/**
 * The rows that break a Requirement made of value checks (no CheckModelRule, no dataset-wide
 * check). AND breaks when any item breaks; OR breaks when every item breaks: row by row. The
 * validator's OR executor (CompositeORRuleGenerator) passes when each alternative matches *some*
 * row, so "ChargeCategory MUST be one of the allowed values" passed there with one good row; here
 * each row must match one of the alternatives, which is what the rule says.
 */
export function violation(check: Check): string {
  const fn = check.CheckFunction;
  switch (fn) {
    case 'AND':
      return items(check).map(violation).map(sure).join(' OR ');
    case 'OR':
      return items(check).map(violation).map(sure).join(' AND ');
    case 'CheckValue': {
      // CheckValueGenerator: NULL must be NULL; a value must equal it (a NULL row is not checked).
      const col = ident(column(check, 'ColumnName'));
      return check.Value === null || check.Value === undefined
        ? `${col} IS NOT NULL`
        : `${col} <> ${literal(check.Value)}`;
    }
    case 'CheckNotValue': {
      // CheckNotValueGenerator: "not NULL" breaks on NULL; "not v" breaks on v.
      const col = ident(column(check, 'ColumnName'));
      return check.Value === null || check.Value === undefined
        ? `${col} IS NULL`
        : `${col} IS NOT NULL AND ${col} = ${literal(check.Value)}`;
    }
    case 'CheckSameValue': {
      const a = ident(column(check, 'ColumnAName'));
      const b = ident(column(check, 'ColumnBName'));
      return `${a} IS NOT NULL AND ${b} IS NOT NULL AND ${a} <> ${b}`;
    }
    case 'CheckNotSameValue': {
      const a = ident(column(check, 'ColumnAName'));
      const b = ident(column(check, 'ColumnBName'));
      return `${a} IS NOT NULL AND ${b} IS NOT NULL AND ${a} = ${b}`;
    }
    case 'CheckGreaterOrEqualThanValue': {
      const col = ident(column(check, 'ColumnName'));
      return `${col} IS NOT NULL AND ${col} < ${literal(check.Value)}`;
    }
    case 'ColumnByColumnEqualsColumnValue': {
      // ColumnByColumnEqualsColumnValueGenerator compares exactly, as here.
      const a = ident(column(check, 'ColumnAName'));
      const b = ident(column(check, 'ColumnBName'));
      const r = ident(column(check, 'ResultColumnName'));
      return `${a} IS NOT NULL AND ${b} IS NOT NULL AND ${r} IS NOT NULL AND ${a} * ${b} <> ${r}`;
    }
    case 'TypeString': {
      const col = ident(column(check, 'ColumnName'));
      return `${col} IS NOT NULL AND typeof(${col}) <> 'VARCHAR'`;
    }
    case 'TypeDecimal': {
      // TypeDecimalGenerator accepts typeof() 'DECIMAL', 'DOUBLE', 'FLOAT'; DuckDB's typeof of a
      // decimal column is 'DECIMAL(p,s)', never 'DECIMAL', so any DECIMAL(p,s) is accepted here.
      const col = ident(column(check, 'ColumnName'));
      return `${col} IS NOT NULL AND typeof(${col}) NOT IN ('DOUBLE', 'FLOAT') AND typeof(${col}) NOT LIKE 'DECIMAL%'`;
    }
    case 'TypeDateTime':
    case 'FormatDateTime': {
      // TypeDateTimeGenerator / FormatDateTimeGenerator: a date/time type, or text in the
      // DateTimeFormat-A-003-M form 'YYYY-MM-DDTHH:mm:ssZ' (the Z required, DateTimeFormat-A-006-M).
      const col = ident(column(check, 'ColumnName'));
      return (
        `${col} IS NOT NULL AND typeof(${col}) NOT IN ${TIMESTAMP_TYPES} AND NOT (typeof(${col}) = 'VARCHAR' ` +
        `AND regexp_full_match(${col}::VARCHAR, '${ISO_UTC}') AND TRY_CAST(${col} AS TIMESTAMP) IS NOT NULL)`
      );
    }
    case 'FormatNumeric': {
      // NumericFormat-A-003/-005/-006/-010: integer, decimal or E notation, no '+'. A column of a
      // numeric type holds numbers, not text: it breaks the format only with NaN or infinity. The
      // validator matches the text of every value, so a DOUBLE of 1e20 ('1e+20') passed there too.
      const col = ident(column(check, 'ColumnName'));
      return (
        `${col} IS NOT NULL AND CASE WHEN typeof(${col}) IN ('DOUBLE', 'FLOAT') THEN isnan(${col}::DOUBLE) OR isinf(${col}::DOUBLE) ` +
        `WHEN typeof(${col}) LIKE 'DECIMAL%' OR typeof(${col}) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT') THEN false ` +
        `ELSE NOT regexp_full_match(trim(${col}::VARCHAR), '-?([0-9]*[.])?[0-9]+([eE]-?[0-9]+)?') END`
      );
    }
    case 'CheckDecimalValue': {
      // "a valid decimal value" (BilledCost-C-004-M). The validator skips it (CheckDecimalValueGenerator
      // is a SkippedCheck); here a number that is not NaN or infinite, or text that casts to DOUBLE.
      const col = ident(column(check, 'ColumnName'));
      return (
        `${col} IS NOT NULL AND CASE WHEN typeof(${col}) IN ('DOUBLE', 'FLOAT') THEN isnan(${col}::DOUBLE) OR isinf(${col}::DOUBLE) ` +
        `WHEN typeof(${col}) LIKE 'DECIMAL%' THEN false ELSE TRY_CAST(${col}::VARCHAR AS DOUBLE) IS NULL END`
      );
    }
    case 'FormatString': {
      // StringHandling-A-001-M: valid Unicode. DuckDB refuses to read invalid UTF-8 from Parquet, so
      // any VARCHAR value passes; a value of another type is TypeString's concern. The validator's
      // FormatStringGenerator demands ASCII only, which StringHandling does not say (a Korean
      // account name is valid Unicode).
      column(check, 'ColumnName');
      return 'FALSE';
    }
    case 'FormatCurrency': {
      // FormatCurrencyGenerator and CurrencyFormat-A-001-C: three letters A-Z.
      const col = ident(column(check, 'ColumnName'));
      return `${col} IS NOT NULL AND NOT regexp_full_match(trim(${col}::VARCHAR), '[A-Z]{3}')`;
    }
    case 'CheckNationalCurrency': {
      // FormatBillingCurrencyCodeGenerator: in ISO 4217 list one (currency_codes.csv); here without
      // the codes that are not government-issued (NOT_NATIONAL).
      const col = ident(column(check, 'ColumnName'));
      return `${col} IS NOT NULL AND trim(${col}::VARCHAR) NOT IN (${nationalCurrencies().map(literal).join(', ')})`;
    }
    case 'FormatUnit': {
      const col = ident(column(check, 'ColumnName'));
      return `${col} IS NOT NULL AND NOT regexp_full_match(${col}::VARCHAR, '${unitPattern()}')`;
    }
    case 'FormatKeyValue': {
      // KeyValueFormat-A-001..004: a JSON object, unique keys, no object or array values. The
      // validator's FormatJSONGenerator checks only that the text is JSON, so '[1]' or '"x"' passed.
      // A MAP column (Tags, SkuPriceDetails) is judged as the JSON object it stands for.
      const col = ident(column(check, 'ColumnName'));
      const text = `(CASE WHEN typeof(${col}) LIKE 'MAP(%' THEN to_json(${col})::VARCHAR ELSE ${col}::VARCHAR END)`;
      return (
        `${col} IS NOT NULL AND NOT (json_valid(${text}) AND json_type(${text}) = 'OBJECT' ` +
        `AND len(json_keys(${text})) = len(list_distinct(json_keys(${text}))) ` +
        `AND NOT coalesce(list_bool_or(list_transform(map_values(TRY_CAST(json(${text}) AS MAP(VARCHAR, JSON))), ` +
        `v -> json_type(v) IN ('OBJECT', 'ARRAY'))), false))`
      );
    }
    default:
      throw new UnsupportedCheck(`CheckFunction ${fn} is not supported in a row check`);
  }
}

/**
 * The rows a Condition selects. As the validator's predicates (generatePredicate of each generator),
 * but "column is not v" is true for a NULL column (IS DISTINCT FROM): the validator's
 * CheckNotValue predicate is `col IS NOT NULL AND col <> v`, so "when ChargeClass is not
 * 'Correction'" (PricingQuantity-C-005-C and others) selected no ordinary row, whose ChargeClass is
 * NULL, and those rules never ran on them.
 */
export function scope(check: Check): string {
  const fn = check.CheckFunction;
  switch (fn) {
    case 'AND':
      return items(check).map(scope).map(sure).join(' AND ');
    case 'OR':
      return items(check).map(scope).map(sure).join(' OR ');
    case 'CheckValue': {
      const col = ident(column(check, 'ColumnName'));
      return check.Value === null || check.Value === undefined
        ? `${col} IS NULL`
        : `${col} = ${literal(check.Value)}`;
    }
    case 'CheckNotValue': {
      const col = ident(column(check, 'ColumnName'));
      return check.Value === null || check.Value === undefined
        ? `${col} IS NOT NULL`
        : `${col} IS DISTINCT FROM ${literal(check.Value)}`;
    }
    case 'CheckSameValue': {
      const a = ident(column(check, 'ColumnAName'));
      const b = ident(column(check, 'ColumnBName'));
      return `${a} IS NOT NULL AND ${b} IS NOT NULL AND ${a} = ${b}`;
    }
    case 'CheckNotSameValue': {
      const a = ident(column(check, 'ColumnAName'));
      const b = ident(column(check, 'ColumnBName'));
      return `${a} IS NOT NULL AND ${b} IS NOT NULL AND ${a} <> ${b}`;
    }
    default:
      throw new UnsupportedCheck(`CheckFunction ${fn} is not supported in a condition`);
  }
}

function items(check: Check): Check[] {
  const list = check.Items ?? [];
  if (list.length === 0) throw new UnsupportedCheck(`${check.CheckFunction} without Items`);
  return list;
}
