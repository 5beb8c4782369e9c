-- Freshness by data source, from the run ledger's rollup (export_units_latest: the latest line of
-- each unit as of the last run, a few objects however long the ledger): the newest billed day with
-- cost rows exported, when the data source was last exported, and Cloudforet's last sync as seen
-- then; ages in hours (billed day: since the end of that UTC day). The freshness alarms watch the same ages, live.
WITH latest AS (
  SELECT
    source AS data_source_id,
    partition_value AS billed_date,
    max_by(object_key, exported_at) AS object_key,
    max(exported_at) AS exported_at,
    max(last_synchronized_at) AS last_synchronized_at
  FROM export_units_latest
  WHERE table_name = 'costs'
  GROUP BY source, partition_value
)
SELECT
  data_source_id,
  max(billed_date) FILTER (WHERE object_key IS NOT NULL) AS newest_billed_date,
  date_diff(
    'hour',
    CAST(max(billed_date) FILTER (WHERE object_key IS NOT NULL) AS timestamp) + INTERVAL '1' DAY,
    CAST(current_timestamp AS timestamp)
  ) AS billed_day_age_hours,
  max(exported_at) AS last_exported_at,
  max(last_synchronized_at) AS last_synchronized_at,
  date_diff(
    'hour',
    CAST(replace(substr(max(last_synchronized_at), 1, 19), 'T', ' ') AS timestamp),
    CAST(current_timestamp AS timestamp)
  ) AS sync_age_hours
FROM latest
GROUP BY data_source_id
ORDER BY billed_day_age_hours DESC, data_source_id
