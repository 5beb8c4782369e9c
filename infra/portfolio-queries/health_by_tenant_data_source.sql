-- Run health by tenant and data source, from every tenant's run ledger rollup (export_units_latest):
-- the tenant's freshness_by_data_source (the newest billed day with cost rows exported, when the
-- data source was last exported, Cloudforet's last sync as seen then; ages in hours, the billed day's
-- since the end of that UTC day) and its completeness_missing_days counted (missing_days: billed days
-- between its first and last exported day that no export covered; a unit that failed and was never
-- exported again leaves one). Stale first: a failing tenant's newest day stops moving, and a
-- tenant missing here has never exported costs. The ledger records exports, not failed attempts.
WITH latest AS (
  SELECT
    tenant,
    source AS data_source_id,
    partition_value AS billed_date,
    max_by(object_key, exported_at) AS object_key,
    max(exported_at) AS exported_at,
    max(last_synchronized_at) AS last_synchronized_at
  FROM export_units_latest
  WHERE table_name = 'costs'
  GROUP BY tenant, source, partition_value
),
ordered AS (
  SELECT
    tenant,
    data_source_id,
    date_diff(
      'day',
      lag(CAST(billed_date AS date)) OVER (PARTITION BY tenant, data_source_id ORDER BY billed_date),
      CAST(billed_date AS date)
    ) AS step_days
  FROM latest
),
missing AS (
  SELECT tenant, data_source_id, sum(coalesce(step_days, 1) - 1) AS missing_days
  FROM ordered
  GROUP BY tenant, data_source_id
)
SELECT
  l.tenant,
  l.data_source_id,
  max(l.billed_date) FILTER (WHERE l.object_key IS NOT NULL) AS newest_billed_date,
  date_diff(
    'hour',
    CAST(max(l.billed_date) FILTER (WHERE l.object_key IS NOT NULL) AS timestamp) + INTERVAL '1' DAY,
    CAST(current_timestamp AS timestamp)
  ) AS billed_day_age_hours,
  max(l.exported_at) AS last_exported_at,
  max(l.last_synchronized_at) AS last_synchronized_at,
  date_diff(
    'hour',
    CAST(replace(substr(max(l.last_synchronized_at), 1, 19), 'T', ' ') AS timestamp),
    CAST(current_timestamp AS timestamp)
  ) AS sync_age_hours,
  max(m.missing_days) AS missing_days
FROM latest l
JOIN missing m ON m.tenant = l.tenant AND m.data_source_id = l.data_source_id
GROUP BY l.tenant, l.data_source_id
ORDER BY billed_day_age_hours DESC, l.tenant, l.data_source_id
