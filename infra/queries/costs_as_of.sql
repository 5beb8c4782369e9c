-- The costs table exactly as a reader saw it at one instant (edit the TIMESTAMP, UTC): the rows of the
-- object each unit held then, current or since superseded (the costs_versions view; run
-- create_costs_versions_view first). Restated days read as they stood before their restatement.
SELECT
  v.cost_id,
  v.cost,
  v.usage_quantity,
  v.usage_unit,
  v.provider,
  v.region_code,
  v.region_key,
  v.product,
  v.usage_type,
  v.resource,
  v.tags,
  v.additional_info,
  v.data,
  v.domain_id,
  v.workspace_id,
  v.v_workspace_id,
  v.project_id,
  v.service_account_id,
  v.data_source_id,
  v.account_id,
  v.billed_year,
  v.billed_month,
  v.currency,
  v.exported_at,
  v.billed_date
FROM costs_versions v
WHERE v.version_from <= TIMESTAMP '2026-10-03 00:00:00'
  AND (v.version_to IS NULL OR v.version_to > TIMESTAMP '2026-10-03 00:00:00')
