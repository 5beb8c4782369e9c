-- Cost reports Cloudforet regenerated with another total: each DONE version whose previous final version
-- of the same config and slot (now EXPIRED) differs by more than 0.01 in the report's currency, before
-- and after. Regenerations already past when the archive first saw the month are listed here too (they
-- are not alerted). See docs/cost-reports.md.
WITH versions AS (
  SELECT
    report_month,
    workspace_id,
    project_id,
    service_account_id,
    cost_report_config_id,
    cost_report_id,
    report_number,
    currency,
    cost,
    created_at,
    lag(cost_report_id) OVER (
      PARTITION BY cost_report_config_id, report_month, workspace_id, project_id, service_account_id
      ORDER BY created_at
    ) AS before_cost_report_id,
    lag(report_number) OVER (
      PARTITION BY cost_report_config_id, report_month, workspace_id, project_id, service_account_id
      ORDER BY created_at
    ) AS before_report_number,
    lag(cost) OVER (
      PARTITION BY cost_report_config_id, report_month, workspace_id, project_id, service_account_id
      ORDER BY created_at
    ) AS before_cost
  FROM cost_reports
  WHERE status IN ('DONE', 'EXPIRED')
)
SELECT
  report_month,
  workspace_id,
  project_id,
  service_account_id,
  currency,
  before_cost_report_id,
  before_report_number,
  before_cost,
  cost_report_id AS after_cost_report_id,
  report_number AS after_report_number,
  cost AS after_cost,
  cost - before_cost AS cost_change,
  created_at AS regenerated_at
FROM versions
WHERE before_cost_report_id IS NOT NULL AND abs(cost - before_cost) > 0.01
ORDER BY report_month DESC, workspace_id, project_id, service_account_id, regenerated_at
