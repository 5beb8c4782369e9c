-- Creates (or replaces) the view costs_combined: every cost row once, with the columns of the costs
-- table, each confirmed month read from its compacted objects (costs_monthly: one object per data
-- source and month instead of one a day) and every other day from costs. compaction_state says up
-- to which month; the cost run moves it (docs/performance.md, "Compacting confirmed months"). The
-- range joins on it let Athena prune both tables' partitions. costs_converted and costs_named read
-- this view: run it first.
CREATE OR REPLACE VIEW costs_combined AS
WITH compacted AS (
  SELECT
    coalesce(max(s.through_month), '0000-00') AS through_month,
    coalesce(max(s.through_date), '0000-00-00') AS through_date
  FROM compaction_state s
  WHERE s.table_name = 'costs'
)
SELECT
  m.cost_id,
  m.cost,
  m.usage_quantity,
  m.usage_unit,
  m.provider,
  m.region_code,
  m.region_key,
  m.product,
  m.usage_type,
  m.resource,
  m.tags,
  m.additional_info,
  m.data,
  m.domain_id,
  m.workspace_id,
  m.v_workspace_id,
  m.project_id,
  m.service_account_id,
  m.data_source_id,
  m.account_id,
  m.billed_year,
  m.billed_month,
  m.currency,
  m.exported_at,
  m.billed_date
FROM costs_monthly m
JOIN compacted w ON m.billed_month <= w.through_month
UNION ALL
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
JOIN compacted w ON c.billed_date > w.through_date
