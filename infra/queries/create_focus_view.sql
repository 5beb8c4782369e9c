-- Creates (or replaces) the view focus_costs: the costs table under FOCUS 1.2 column names
-- where Cloudforet has the data, and x_-prefixed columns for the rest. Gaps: infra/FOCUS.md.
CREATE OR REPLACE VIEW focus_costs AS
SELECT
  c.cost AS BilledCost,
  c.cost AS EffectiveCost,
  c.currency AS BillingCurrency,
  CAST(CAST(c.billed_date AS date) AS timestamp) AS ChargePeriodStart,
  CAST(CAST(c.billed_date AS date) + INTERVAL '1' DAY AS timestamp) AS ChargePeriodEnd,
  CAST(date_trunc('month', CAST(c.billed_date AS date)) AS timestamp) AS BillingPeriodStart,
  CAST(date_trunc('month', CAST(c.billed_date AS date)) + INTERVAL '1' MONTH AS timestamp) AS BillingPeriodEnd,
  CASE c.provider
    WHEN 'aws' THEN 'AWS'
    WHEN 'azure' THEN 'Microsoft'
    WHEN 'google_cloud' THEN 'Google Cloud'
    ELSE c.provider
  END AS ProviderName,
  c.region_code AS RegionId,
  c.product AS ServiceName,
  c.resource AS ResourceId,
  c.account_id AS SubAccountId,
  c.usage_quantity AS ConsumedQuantity,
  c.usage_unit AS ConsumedUnit,
  c.tags AS Tags,
  c.provider AS x_provider,
  c.usage_type AS x_usage_type,
  c.region_key AS x_region_key,
  c.workspace_id AS x_workspace_id,
  c.v_workspace_id AS x_v_workspace_id,
  c.project_id AS x_project_id,
  c.service_account_id AS x_service_account_id,
  c.data_source_id AS x_data_source_id,
  c.domain_id AS x_domain_id,
  c.cost_id AS x_cost_id,
  c.additional_info AS x_additional_info,
  c.data AS x_data,
  c.billed_date AS x_billed_date,
  c.exported_at AS x_exported_at
FROM costs c
