-- Reconcile each cost day: what the ledger says its latest export published (rows, cost sum, and
-- the row count Cloudforet reported for the listing at export time) against what the costs table
-- holds now. Rows where a difference is not zero need a look (README, Troubleshooting).
WITH latest AS (
  SELECT
    source AS data_source_id,
    partition_value AS billed_date,
    max_by(row_count, exported_at) AS ledger_rows,
    max_by(total_count, exported_at) AS cloudforet_rows,
    max_by(cost_sum, exported_at) AS ledger_cost_sum,
    max(exported_at) AS exported_at
  FROM export_units
  WHERE table_name = 'costs'
  GROUP BY source, partition_value
),
files AS (
  SELECT data_source_id, billed_date, count(*) AS table_rows, sum(cost) AS table_cost_sum
  FROM costs
  GROUP BY data_source_id, billed_date
)
SELECT
  l.data_source_id,
  l.billed_date,
  l.exported_at,
  l.cloudforet_rows,
  l.ledger_rows,
  coalesce(f.table_rows, 0) AS table_rows,
  coalesce(f.table_rows, 0) - l.ledger_rows AS rows_difference,
  l.ledger_cost_sum,
  coalesce(f.table_cost_sum, 0) AS table_cost_sum,
  round(coalesce(f.table_cost_sum, 0) - coalesce(l.ledger_cost_sum, 0), 6) AS cost_difference
FROM latest l
LEFT JOIN files f ON f.data_source_id = l.data_source_id AND f.billed_date = l.billed_date
ORDER BY abs(coalesce(f.table_rows, 0) - l.ledger_rows) DESC, l.billed_date DESC, l.data_source_id
