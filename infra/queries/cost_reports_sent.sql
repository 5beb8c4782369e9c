-- The cost report Cloudforet e-mailed for each month and workspace (or project, or service account):
-- the first DONE version of its config and slot, EXPIRED since or not. A regeneration is never e-mailed
-- (cost_report_serivce.py: if not is_regenerate: send_cost_report). See docs/cost-reports.md.
SELECT
  report_month,
  workspace_id,
  project_id,
  service_account_id,
  cost_report_config_id,
  cost_report_id,
  report_number,
  name,
  currency,
  cost,
  cost_usd,
  is_adjusted,
  issue_date,
  created_at
FROM (
  SELECT
    r.*,
    row_number() OVER (
      PARTITION BY r.cost_report_config_id, r.report_month, r.workspace_id, r.project_id, r.service_account_id
      ORDER BY r.created_at
    ) AS version
  FROM cost_reports r
  WHERE r.status IN ('DONE', 'EXPIRED')
)
WHERE version = 1
ORDER BY report_month DESC, workspace_id, project_id, service_account_id
