-- Creates (or replaces) the view focus_costs: every FOCUS 1.2 mandatory column, typed as the spec
-- says (NULL where Cloudforet holds no such data), the FOCUS 1.3 provider columns, more FOCUS columns
-- where Cloudforet has the data, and x_-prefixed Cloudforet fields. Built on costs_named: run
-- create_costs_named_view first. Column by column: infra/FOCUS.md.
CREATE OR REPLACE VIEW focus_costs AS
WITH
region_names AS (
  SELECT region_key, name FROM (
    SELECT g.region_key, g.name,
      row_number() OVER (PARTITION BY g.region_key ORDER BY g.snapshot_date DESC, g.exported_at DESC, g.name) AS pick
    FROM regions g
    WHERE g.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
),
provider_names AS (
  SELECT provider, name FROM (
    SELECT p.provider, p.name,
      row_number() OVER (PARTITION BY p.provider ORDER BY p.snapshot_date DESC, p.exported_at DESC) AS pick
    FROM providers p
    WHERE p.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
),
base AS (
  SELECT
    n.*,
    CAST(COALESCE(pn.name, CASE n.provider
      WHEN 'aws' THEN 'AWS'
      WHEN 'azure' THEN 'Microsoft'
      WHEN 'google_cloud' THEN 'Google Cloud'
      ELSE n.provider
    END) AS varchar) AS provider_name,
    rn.name AS region_name,
    -- Plugin fields: Azure rows carry "Charge Type", AWS rows "Line Item Type".
    lower(COALESCE(
      json_extract_scalar(n.additional_info, '$["Charge Type"]'),
      json_extract_scalar(n.additional_info, '$["Line Item Type"]')
    )) AS charge_type,
    lower(json_extract_scalar(n.additional_info, '$["Pricing Model"]')) AS pricing_model,
    json_extract_scalar(n.additional_info, '$["Benefit Id"]') AS benefit_id,
    TRY_CAST(json_extract_scalar(n.additional_info, '$["PayG Unit Price"]') AS decimal(38, 10)) AS payg_unit_price
  FROM costs_named n
  LEFT JOIN provider_names pn ON pn.provider = n.provider
  LEFT JOIN region_names rn ON rn.region_key = n.region_key
)
SELECT
  CAST(NULL AS varchar) AS AvailabilityZone,
  CAST(b.cost AS decimal(38, 10)) AS BilledCost,
  COALESCE(b.billing_account_id, b.account_id) AS BillingAccountId,
  COALESCE(b.billing_account_name, b.service_account_name) AS BillingAccountName,
  b.currency AS BillingCurrency,
  CAST(date_trunc('month', CAST(b.billed_date AS date)) + INTERVAL '1' MONTH AS timestamp) AS BillingPeriodEnd,
  CAST(date_trunc('month', CAST(b.billed_date AS date)) AS timestamp) AS BillingPeriodStart,
  CAST(CASE
    WHEN b.charge_type IN ('usage', 'discountedusage', 'savingsplancoveredusage', 'unusedreservation', 'unusedsavingsplan') THEN 'Usage'
    WHEN b.charge_type IN ('purchase', 'fee', 'rifee', 'savingsplanrecurringfee', 'savingsplanupfrontfee') THEN 'Purchase'
    WHEN b.charge_type = 'tax' THEN 'Tax'
    WHEN b.charge_type IN ('credit', 'refund') THEN 'Credit'
    WHEN b.charge_type IN ('adjustment', 'roundingadjustment') THEN 'Adjustment'
  END AS varchar) AS ChargeCategory,
  CAST(NULL AS varchar) AS ChargeClass,
  b.usage_type AS ChargeDescription,
  CAST(NULL AS varchar) AS ChargeFrequency,
  CAST(CAST(b.billed_date AS date) + INTERVAL '1' DAY AS timestamp) AS ChargePeriodEnd,
  CAST(CAST(b.billed_date AS date) AS timestamp) AS ChargePeriodStart,
  CAST(NULL AS varchar) AS CommitmentDiscountCategory,
  b.benefit_id AS CommitmentDiscountId,
  CAST(NULL AS varchar) AS CommitmentDiscountName,
  CAST(NULL AS varchar) AS CommitmentDiscountType,
  CAST(NULL AS varchar) AS CommitmentDiscountStatus,
  CAST(b.usage_quantity AS decimal(38, 10)) AS ConsumedQuantity,
  b.usage_unit AS ConsumedUnit,
  CAST(NULL AS decimal(38, 10)) AS ContractedCost,
  CAST(NULL AS decimal(38, 10)) AS ContractedUnitPrice,
  CAST(b.cost AS decimal(38, 10)) AS EffectiveCost,
  b.provider_name AS InvoiceIssuerName,
  CAST(b.payg_unit_price * CAST(b.usage_quantity AS decimal(38, 10)) AS decimal(38, 10)) AS ListCost,
  b.payg_unit_price AS ListUnitPrice,
  CAST(CASE
    WHEN b.pricing_model IN ('ondemand', 'on demand', 'payg') THEN 'Standard'
    WHEN b.pricing_model = 'spot' THEN 'Dynamic'
    WHEN b.pricing_model IN ('reserved', 'reservation', 'savingsplan', 'savings plan') THEN 'Committed'
  END AS varchar) AS PricingCategory,
  CAST(b.usage_quantity AS decimal(38, 10)) AS PricingQuantity,
  b.usage_unit AS PricingUnit,
  b.provider_name AS ProviderName,
  b.provider_name AS PublisherName,
  b.region_code AS RegionId,
  b.region_name AS RegionName,
  b.resource AS ResourceId,
  CAST(NULL AS varchar) AS ResourceName,
  CAST(NULL AS varchar) AS ResourceType,
  CAST(CASE
    WHEN b.product IN ('AmazonEC2', 'AWSLambda', 'Compute Engine', 'Virtual Machines') THEN 'Compute'
    WHEN b.product IN ('AmazonS3', 'Cloud Storage', 'Storage') THEN 'Storage'
    WHEN b.product IN ('AmazonRDS', 'Azure Database for PostgreSQL', 'Cloud SQL') THEN 'Databases'
    WHEN b.product IN ('BigQuery', 'AmazonAthena') THEN 'Analytics'
    WHEN b.product IN ('AmazonCloudWatch', 'Azure Monitor', 'Cloud Monitoring') THEN 'Management and Governance'
    ELSE 'Other'
  END AS varchar) AS ServiceCategory,
  b.product AS ServiceName,
  CAST(NULL AS varchar) AS SkuId,
  CAST(NULL AS varchar) AS SkuPriceId,
  b.account_id AS SubAccountId,
  b.service_account_name AS SubAccountName,
  TRY_CAST(json_parse(b.tags) AS map(varchar, varchar)) AS Tags,
  b.provider_name AS ServiceProviderName,
  b.provider_name AS HostProviderName,
  b.billed_month AS billing_period,
  b.provider AS x_provider,
  b.usage_type AS x_usage_type,
  b.region_key AS x_region_key,
  b.workspace_id AS x_workspace_id,
  b.workspace_name AS x_workspace_name,
  b.v_workspace_id AS x_v_workspace_id,
  b.project_id AS x_project_id,
  b.project_name AS x_project_name,
  b.project_group_path AS x_project_group_path,
  b.service_account_id AS x_service_account_id,
  b.data_source_id AS x_data_source_id,
  b.domain_id AS x_domain_id,
  b.cost_id AS x_cost_id,
  b.tags AS x_tags_json,
  b.additional_info AS x_additional_info,
  b.data AS x_data,
  b.billed_date AS x_billed_date,
  b.exported_at AS x_exported_at
FROM base b
