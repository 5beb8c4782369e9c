-- The cost report each month stands on now (the one statements reconcile to): the reports whose latest
-- status in cost_report_status is DONE, a regeneration's new version rather than the EXPIRED one it
-- replaced. See docs/cost-reports.md.
WITH latest AS (
  SELECT report_month, cost_report_id, max_by(status, observed_at) AS status
  FROM cost_report_status
  GROUP BY report_month, cost_report_id
)
SELECT
  r.report_month,
  r.workspace_id,
  r.project_id,
  r.service_account_id,
  r.cost_report_config_id,
  r.cost_report_id,
  r.report_number,
  r.name,
  r.currency,
  r.cost,
  r.cost_usd,
  r.is_adjusted,
  r.issue_date,
  r.created_at
FROM cost_reports r
JOIN latest l ON l.report_month = r.report_month AND l.cost_report_id = r.cost_report_id
WHERE l.status = 'DONE'
ORDER BY r.report_month DESC, r.workspace_id, r.project_id, r.service_account_id
