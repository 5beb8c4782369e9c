// The DuckDB stand-in answers as Athena engine 3 (Trino) does where the shipped SQL meets a
// difference. Each expected value is Trino's documented result; the page is named above each test
// (trinodb/trino docs/src/main/sphinx/…, https://trino.io/docs/current/…).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, utcDay } from '../../../functions/lib/dates.ts';
import { type AthenaLike, athenaOver, trinoToDuckDb } from '../../../harness/duckdb-athena.ts';
import { loadNamedQueries } from '../../../infra/named-queries.ts';

describe('the DuckDB stand-in answers as Trino documents', () => {
  let dir: string;
  let db: AthenaLike;
  const one = async (sql: string) => (await db.run(sql))[0]!;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'athena-like-'));
    db = await athenaOver(dir);
  });
  afterAll(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  // functions/datetime.md, "Date and time operators": "date '2012-08-08' - interval '2' day | 2012-08-06"
  // and "date '2012-08-08' + interval '2' day | 2012-08-10": a date stays a date, so it casts to
  // varchar as 'YYYY-MM-DD' (DuckDB made it a timestamp: '2012-08-06 00:00:00').
  it('keeps date ± interval a date, so it casts to YYYY-MM-DD', async () => {
    const row = await one(
      `SELECT CAST(date '2012-08-08' - interval '2' day AS varchar) AS minus,
              CAST(date '2012-08-08' + interval '2' day AS varchar) AS plus,
              CAST(current_date - INTERVAL '30' DAY AS varchar) AS thirty`,
    );

    expect(row).toEqual({
      minus: '2012-08-06',
      plus: '2012-08-10',
      thirty: addDays(utcDay(new Date()), -30),
    });
  });

  // functions/datetime.md: "date_trunc(unit, x) -> [same as input]": of a date, a date.
  it('keeps date_trunc of a date a date, also with a month added', async () => {
    const row = await one(
      `SELECT CAST(date_trunc('month', CAST('2001-08-22' AS date)) AS varchar) AS first_day,
              CAST(date_trunc('month', CAST('2001-08-22' AS date)) + INTERVAL '1' MONTH AS varchar) AS next_month`,
    );

    expect(row).toEqual({ first_day: '2001-08-01', next_month: '2001-09-01' });
  });

  // functions/json.md, json_extract_scalar: "The value referenced by json_path must be a scalar
  // (boolean, number or string)." An object or array gives NULL in Athena; DuckDB gave its JSON text.
  it('gives json_extract_scalar of an object or array as NULL, of a scalar as its text', async () => {
    const doc = `'{"team": "core", "n": 1.5, "ok": true, "obj": {"a": 1}, "arr": [1], "nil": null}'`;

    const row = await one(
      `SELECT json_extract_scalar(${doc}, '$["team"]') AS team, json_extract_scalar(${doc}, '$["n"]') AS n,
              json_extract_scalar(${doc}, '$["ok"]') AS ok, json_extract_scalar(${doc}, '$["obj"]') AS obj,
              json_extract_scalar(${doc}, '$["arr"]') AS arr, json_extract_scalar(${doc}, '$["nil"]') AS nil,
              json_extract_scalar(${doc}, '$["missing"]') AS missing`,
    );

    expect(row).toEqual({
      team: 'core',
      n: '1.5',
      ok: 'true',
      obj: null,
      arr: null,
      nil: null,
      missing: null,
    });
  });

  // functions/json.md, "Cast from JSON": casting to MAP is supported "when the key type of the map
  // is VARCHAR and value type of the map is one of the supported types" (BOOLEAN … VARCHAR, scalars),
  // and "JSON maps can have mixed value types. This makes it impossible to cast them to SQL arrays
  // and maps in some cases": one nested value fails the whole cast, so TRY_CAST gives NULL.
  it('nulls a whole tag map when one value is nested, and keeps a flat one', async () => {
    const tags = (json: string) =>
      `TRY_CAST(json_parse(t.tags) AS map(varchar, varchar)) FROM (VALUES ('${json}')) AS t (tags)`;

    const flat = await one(`SELECT ${tags('{"team": "core", "n": 1, "ok": true}')}`);
    const nested = await one(`SELECT ${tags('{"team": "core", "meta": {"a": 1}}')}`);
    const listed = await one(`SELECT ${tags('{"team": "core", "ids": [1, 2]}')}`);

    expect(Object.values(flat)[0]).toEqual([
      { key: 'team', value: 'core' },
      { key: 'n', value: '1' },
      { key: 'ok', value: 'true' },
    ]);
    expect(Object.values(nested)[0]).toBeNull();
    expect(Object.values(listed)[0]).toBeNull();
  });

  // functions/map.md: "element_at(map(K,V), key) -> V Returns value for given key, or NULL if the
  // key is not contained in the map." DuckDB's element_at gives a list of the value.
  it('gives element_at of a map as the value, or NULL for a missing key', async () => {
    const row = await one(
      `SELECT element_at(MAP(ARRAY['env'], ARRAY['prod']), 'env') AS env,
              element_at(MAP(ARRAY['env'], ARRAY['prod']), 'team') AS team`,
    );

    expect(row).toEqual({ env: 'prod', team: null });
  });

  // functions/datetime.md: "date_add(unit, value, timestamp) -> [same as input] Adds an interval value
  // of type unit to timestamp. Subtraction can be performed by using a negative value", and MySQL
  // date_format's %Y and %m ("Year, numeric, four digits", "Month, numeric (00 .. 12)"). CID's
  // FOCUS views filter with DATE_FORMAT(DATE_ADD('day', -60, CURRENT_DATE), '%Y-%m').
  it('adds days with date_add and formats months with date_format, as CID filters', async () => {
    const row = await one(
      `SELECT CAST(DATE_ADD('day', -60, DATE '2026-03-01') AS varchar) AS back,
              DATE_FORMAT(DATE_ADD('day', -60, DATE '2026-03-01'), '%Y-%m') AS month,
              date_format(TIMESTAMP '2001-01-09 09:04:05', '%Y-%m-%d') AS day`,
    );

    expect(row).toEqual({ back: '2025-12-31', month: '2025-12', day: '2001-01-09' });
  });

  // functions/json.md: "json_format(json) -> varchar Returns the JSON text serialized from the input
  // JSON value"; types: map(K, V), which Athena DDL and CID spell MAP<K,V>.
  it('serializes JSON with json_format and reads the MAP<K,V> spelling of a map type', async () => {
    const row = await one(
      `SELECT json_format(CAST(MAP(ARRAY['tag_env'], ARRAY['prod']) AS JSON)) AS text,
              CAST(NULL AS MAP<VARCHAR,VARCHAR>) AS none`,
    );

    expect(row).toEqual({ text: '{"tag_env":"prod"}', none: null });
  });

  // functions/datetime.md: "date_diff(unit, timestamp1, timestamp2) -> bigint Returns
  // timestamp2 - timestamp1 expressed in terms of unit", whole units elapsed: the documented
  // 86400 seconds for 1 day and 0.123456789 s. DuckDB's date_diff counts boundaries crossed instead.
  it('counts whole units elapsed in date_diff, not boundaries crossed', async () => {
    const row = await one(
      `SELECT date_diff('second', TIMESTAMP '2020-06-01 12:30:45.000000000', TIMESTAMP '2020-06-02 12:30:45.123456789') AS s,
              date_diff('hour', TIMESTAMP '2026-01-01 10:59:00', TIMESTAMP '2026-01-01 11:01:00') AS h,
              date_diff('day', DATE '2020-03-01', DATE '2020-03-02') AS d`,
    );

    expect(row).toEqual({ s: 86400n, h: 0n, d: 1n });
  });

  // functions/datetime.md: "current_date Returns the current date as of the start of the query" in
  // the session time zone (current_timezone()); Athena's sessions are UTC. DuckDB took the machine's.
  it('runs in UTC: current_date and current_timestamp are UTC whatever the machine zone', async () => {
    const before = Date.now();

    const row = await one(
      'SELECT CAST(current_date AS varchar) AS today, CAST(CAST(current_timestamp AS timestamp) AS varchar) AS now',
    );

    const after = Date.now();
    expect([utcDay(new Date(before)), utcDay(new Date(after))]).toContain(row.today);
    const now = Date.parse(`${String(row.now).replace(' ', 'T')}Z`);
    expect(now).toBeGreaterThanOrEqual(before - 1000);
    expect(now).toBeLessThanOrEqual(after + 1000);
  });

  // functions/datetime.md: "last_day_of_month(x) -> date Returns the last day of the month."
  it('gives last_day_of_month as a date', async () => {
    const row = await one(
      `SELECT CAST(last_day_of_month(DATE '2024-02-10') AS varchar) AS leap, CAST(last_day_of_month(DATE '2026-04-30') AS varchar) AS april`,
    );

    expect(row).toEqual({ leap: '2024-02-29', april: '2026-04-30' });
  });

  it("answers current_date and current_timestamp from a test's fixed clock when given one", async () => {
    const fixed = await athenaOver(dir, { now: new Date('2026-03-31T23:30:00.000Z') });

    const [row] = await fixed
      .run(
        `SELECT CAST(current_date AS varchar) AS today, CAST(current_date - INTERVAL '30' DAY AS varchar) AS start,
                CAST(CAST(current_timestamp AS timestamp) AS varchar) AS now`,
      )
      .finally(() => fixed.close());

    expect(row).toEqual({ today: '2026-03-31', start: '2026-03-01', now: '2026-03-31 23:30:00' });
  });

  it('leaves no date arithmetic of the shipped SQL a DuckDB timestamp', () => {
    const unwrapped = /(current_date|AS date\)) [+-] INTERVAL '\d+' \w+\b(?! AS date\))/i;

    for (const { name, sql } of loadNamedQueries())
      expect(unwrapped.test(trinoToDuckDb(sql)), name).toBe(false);
  });
  // sql/select.md, "WITH clause": "The WITH clause will be inlined anywhere the named relation is
  // used". DuckDB materializes a query named twice and reads it whole once, so a filter on one use
  // never pruned that use's scan, and the reading stage counted reads Athena does not make.
  it('inlines a WITH query named twice, so each use is planned (and pruned) on its own', async () => {
    const sql = `WITH t AS (SELECT range AS n FROM range(10)), u (m) AS (SELECT n FROM t)
      SELECT (SELECT count(*) FROM t WHERE n < 3) AS few, (SELECT count(*) FROM t) AS every, CAST(1 AS varchar) AS one
      FROM u WHERE m = 0`;
    const plan = (await db.run(`EXPLAIN ${sql}`)).map((r) => String(r.explain_value)).join('\n');
    const untranslated = (await db.connection.runAndReadAll(`EXPLAIN ${sql}`)).getRowObjects();

    expect(trinoToDuckDb(sql)).toContain('WITH t AS NOT MATERIALIZED (SELECT');
    expect(trinoToDuckDb(sql)).toContain(', u (m) AS NOT MATERIALIZED (SELECT');
    expect(trinoToDuckDb(sql)).toContain('CAST(1 AS varchar)');
    expect(await one(sql)).toEqual({ few: 3n, every: 10n, one: '1' });
    expect(JSON.stringify(untranslated)).toMatch(/CTE_SCAN/); // DuckDB's own plan reads t once
    expect(plan).not.toMatch(/CTE_SCAN/);
  });
});
