-- Month-to-date cost by workspace and project (virtual workspaces already resolved to real ones).
SELECT
  c.workspace_id,
  c.project_id,
  c.currency,
  round(sum(c.cost), 2) AS total_cost
FROM costs c
WHERE c.billed_date >= CAST(date_trunc('month', current_date) AS varchar)
GROUP BY c.workspace_id, c.project_id, c.currency
ORDER BY total_cost DESC
