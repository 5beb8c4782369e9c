-- Last month's cost in USD by workspace name and project name: the last complete calendar month,
-- every cost row counted once, every currency converted at that month's Cloudforet rate (view
-- costs_named_converted; run the create_ queries once first). Rows without a workspace or project
-- are kept: '(no workspace)', '(no project)'; an id no recent snapshot names is '(no name)'. Names
-- repeat across workspaces, so the ids stay beside them.
SELECT
  coalesce(n.workspace_name, CASE WHEN n.workspace_id IS NULL THEN '(no workspace)' ELSE '(no name)' END)
    AS workspace_name,
  coalesce(n.project_name, CASE WHEN n.project_id IS NULL THEN '(no project)' ELSE '(no name)' END)
    AS project_name,
  round(sum(n.cost_usd), 2) AS cost_usd,
  substr(n.billed_date, 1, 7) AS billed_month,
  n.workspace_id,
  n.project_id,
  count(*) AS cost_rows,
  bool_or(n.rate_is_fallback) AS rate_is_fallback,
  bool_or(n.rate_is_latest_known) AS rate_is_latest_known
FROM costs_named_converted n
WHERE n.billed_date >= CAST(date_trunc('month', current_date) - INTERVAL '1' MONTH AS varchar)
  AND n.billed_date < CAST(date_trunc('month', current_date) AS varchar)
  -- The month's partition too: a compacted month (costs_monthly) is pruned by billed_month only.
  AND n.billed_month = substr(CAST(date_trunc('month', current_date) - INTERVAL '1' MONTH AS varchar), 1, 7)
GROUP BY 1, 2, 4, n.workspace_id, n.project_id
ORDER BY cost_usd DESC, workspace_name, project_name
