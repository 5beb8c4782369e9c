-- Completeness, from the run ledger: for each data source, the billed days between its first and
-- its last exported day that no export ever covered (a day with no rows still has a unit). Any row
-- here is a gap: re-run those days (README, Troubleshooting).
WITH bounds AS (
  SELECT source AS data_source_id, min(partition_value) AS first_day, max(partition_value) AS last_day
  FROM export_units
  WHERE table_name = 'costs'
  GROUP BY source
),
days AS (
  SELECT b.data_source_id, CAST(d AS date) AS billed_day
  FROM bounds b
  CROSS JOIN UNNEST(sequence(CAST(b.first_day AS date), CAST(b.last_day AS date), INTERVAL '1' DAY)) AS t (d)
)
SELECT days.data_source_id, CAST(days.billed_day AS varchar) AS missing_billed_date
FROM days
LEFT JOIN export_units u
  ON u.table_name = 'costs'
  AND u.source = days.data_source_id
  AND u.partition_value = CAST(days.billed_day AS varchar)
WHERE u.source IS NULL
ORDER BY days.data_source_id, days.billed_day
