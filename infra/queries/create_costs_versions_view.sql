-- Creates (or replaces) the view costs_versions: every costs row a reader could ever have read, the
-- current objects' and the superseded ones kept in costs_revisions, each with the span its object was
-- current: version_from (the object's exported_at) up to version_to (the exported_at of the object that
-- replaced it, or of its removal in the revisions ledger; NULL while current). "As of" an instant T:
-- WHERE version_from <= T AND (version_to IS NULL OR version_to > T) (costs_as_of). A superseded
-- object also still current (kept just before a replacement that did not happen) is read once.
CREATE OR REPLACE VIEW costs_versions AS
WITH current_versions AS (
  SELECT DISTINCT billed_date, data_source_id, exported_at FROM costs
),
objects AS (
  SELECT
  c.cost_id,
  c.cost,
  c.usage_quantity,
  c.usage_unit,
  c.provider,
  c.region_code,
  c.region_key,
  c.product,
  c.usage_type,
  c.resource,
  c.tags,
  c.additional_info,
  c.data,
  c.domain_id,
  c.workspace_id,
  c.v_workspace_id,
  c.project_id,
  c.service_account_id,
  c.data_source_id,
  c.account_id,
  c.billed_year,
  c.billed_month,
  c.currency,
  c.exported_at,
  c.billed_date
  FROM costs c
  UNION ALL
  SELECT
  r.cost_id,
  r.cost,
  r.usage_quantity,
  r.usage_unit,
  r.provider,
  r.region_code,
  r.region_key,
  r.product,
  r.usage_type,
  r.resource,
  r.tags,
  r.additional_info,
  r.data,
  r.domain_id,
  r.workspace_id,
  r.v_workspace_id,
  r.project_id,
  r.service_account_id,
  r.data_source_id,
  r.account_id,
  r.billed_year,
  r.billed_month,
  r.currency,
  r.exported_at,
  r.billed_date
  FROM costs_revisions r
  LEFT JOIN current_versions k ON k.billed_date = r.billed_date AND k.data_source_id = r.data_source_id AND k.exported_at = r.exported_at
  WHERE k.exported_at IS NULL
),
versions AS (
  SELECT
    billed_date, data_source_id,
    exported_at AS version_from,
    lead(exported_at) OVER (PARTITION BY billed_date, data_source_id ORDER BY exported_at) AS next_from
  FROM (SELECT DISTINCT billed_date, data_source_id, exported_at FROM objects) v
),
removals AS (
  SELECT
    l.partition_value AS billed_date,
    l.unit AS data_source_id,
    CAST(replace(substr(l.superseded_at, 1, 23), 'T', ' ') AS timestamp) AS removed_at
  FROM revisions l
  WHERE l.table_name = 'costs' AND l.outcome = 'removed'
),
spans AS (
  SELECT
    s.billed_date, s.data_source_id,
    s.version_from,
    CASE
      WHEN min(m.removed_at) IS NULL THEN s.next_from
      WHEN s.next_from IS NULL THEN min(m.removed_at)
      ELSE least(s.next_from, min(m.removed_at))
    END AS version_to
  FROM versions s
  LEFT JOIN removals m ON s.billed_date = m.billed_date AND s.data_source_id = m.data_source_id AND m.removed_at > s.version_from
  GROUP BY s.billed_date, s.data_source_id, s.version_from, s.next_from
)
SELECT
  x.cost_id,
  x.cost,
  x.usage_quantity,
  x.usage_unit,
  x.provider,
  x.region_code,
  x.region_key,
  x.product,
  x.usage_type,
  x.resource,
  x.tags,
  x.additional_info,
  x.data,
  x.domain_id,
  x.workspace_id,
  x.v_workspace_id,
  x.project_id,
  x.service_account_id,
  x.data_source_id,
  x.account_id,
  x.billed_year,
  x.billed_month,
  x.currency,
  x.exported_at,
  x.billed_date,
  b.version_from,
  b.version_to
FROM objects x
JOIN spans b ON b.billed_date = x.billed_date AND b.data_source_id = x.data_source_id AND b.version_from = x.exported_at
