-- Completeness, from the run ledger's rollup (export_units_latest, the latest line of each unit):
-- for each data source, the billed days between its first and its last exported day that no export
-- ever covered (a day with no rows still has a unit). Any row here is a gap: re-run those days (README, Troubleshooting).
WITH covered AS (
  -- The rollup read once: a missing day lies between two covered days that are not consecutive.
  SELECT DISTINCT source AS data_source_id, CAST(partition_value AS date) AS billed_day
  FROM export_units_latest
  WHERE table_name = 'costs'
),
gaps AS (
  SELECT data_source_id, previous_day, next_day FROM (
    SELECT
      data_source_id,
      lag(billed_day) OVER (PARTITION BY data_source_id ORDER BY billed_day) AS previous_day,
      billed_day AS next_day
    FROM covered
  ) c
  WHERE date_diff('day', previous_day, next_day) > 1
)
SELECT g.data_source_id, CAST(CAST(t.d AS date) AS varchar) AS missing_billed_date
FROM gaps g
CROSS JOIN UNNEST(sequence(g.previous_day, g.next_day, INTERVAL '1' DAY)) AS t (d)
WHERE CAST(t.d AS date) > g.previous_day AND CAST(t.d AS date) < g.next_day
ORDER BY g.data_source_id, CAST(t.d AS date)
