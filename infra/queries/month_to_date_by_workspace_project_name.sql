-- Month-to-date cost by workspace and project name, with the project group path (view costs_named;
-- run create_costs_named_view first). Names repeat across workspaces, so the ids stay beside them.
SELECT
  n.workspace_name,
  n.project_group_path,
  n.project_name,
  n.workspace_id,
  n.project_id,
  n.currency,
  round(sum(n.cost), 2) AS total_cost
FROM costs_named n
WHERE n.billed_date >= CAST(date_trunc('month', current_date) AS varchar)
  -- The same window by month: it prunes the compacted months (costs_monthly) as billed_date the days.
  AND n.billed_month >= substr(CAST(date_trunc('month', current_date) AS varchar), 1, 7)
GROUP BY n.workspace_name, n.project_group_path, n.project_name, n.workspace_id, n.project_id, n.currency
ORDER BY total_cost DESC
