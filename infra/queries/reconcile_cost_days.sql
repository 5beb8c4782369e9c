-- Reconcile each cost day: what Cloudforet's own cost/analyze said of the day when its latest
-- export was planned (rows and cost sum, recorded in the ledger) against what the costs table holds
-- now. A difference that is not zero needs a look (README, Troubleshooting): a file changed or lost
-- since the export, or a day published from one sync job (published_job_id) while analyze still
-- counted a failed sync's leftover rows beside it. analyze_rows is null for units exported before
-- the ledger recorded analyze totals: the comparison is then with the ledger's own row count.
-- The ledger is read through its rollup (export_units_latest: the latest line of each unit), the
-- rows through costs_combined (run create_costs_combined_view first): what every other question
-- reads, each confirmed month from its compacted objects. That a confirmed month's daily objects
-- are still the ones compacted is the verifier's to prove (costs --verify; docs/performance.md).
WITH latest AS (
  SELECT
    source AS data_source_id,
    partition_value AS billed_date,
    max_by(row_count, exported_at) AS ledger_rows,
    max_by(cost_sum, exported_at) AS ledger_cost_sum,
    max_by(analyze_rows, exported_at) AS analyze_rows,
    max_by(analyze_cost_sum, exported_at) AS analyze_cost_sum,
    max_by(json_extract_scalar(change_check, '$.jobId'), exported_at) AS published_job_id,
    max(exported_at) AS exported_at
  FROM export_units_latest
  WHERE table_name = 'costs'
  GROUP BY source, partition_value
),
files AS (
  SELECT data_source_id, billed_date, count(*) AS table_rows, sum(cost) AS table_cost_sum
  FROM costs_combined
  GROUP BY data_source_id, billed_date
),
compared AS (
  SELECT
    l.data_source_id,
    l.billed_date,
    l.exported_at,
    l.published_job_id,
    l.analyze_rows,
    l.analyze_cost_sum,
    l.ledger_rows,
    coalesce(f.table_rows, 0) AS table_rows,
    coalesce(f.table_cost_sum, 0) AS table_cost_sum,
    coalesce(f.table_rows, 0) - coalesce(l.analyze_rows, l.ledger_rows) AS rows_difference,
    round(
      coalesce(f.table_cost_sum, 0) - coalesce(l.analyze_cost_sum, l.ledger_cost_sum, 0),
      6
    ) AS cost_difference
  FROM latest l
  LEFT JOIN files f ON f.data_source_id = l.data_source_id AND f.billed_date = l.billed_date
)
SELECT *
FROM compared
ORDER BY
  abs(rows_difference) DESC,
  abs(cost_difference) DESC,
  billed_date DESC,
  data_source_id
