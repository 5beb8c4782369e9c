-- Each budget this month: limit, actual (month to date) and a month-end forecast, from the latest
-- budgets / budget_usage snapshot, in the budget's currency. The forecast is LINEAR: actual / days
-- complete x days in the month (Cloudforet aggregates once a day at 00:00 UTC, so today is not in
-- the actual). No seasonality, no commitments; early in the month it swings widely.
WITH latest AS (
  SELECT max(snapshot_date) AS snapshot_date
  FROM budget_usage
  WHERE snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
),
calendar AS (
  SELECT
    CAST(date_trunc('month', current_date) AS date) AS first_day,
    greatest(day(current_date) - 1, 1) AS days_complete,
    date_diff('day', CAST(date_trunc('month', current_date) AS date),
      CAST(date_trunc('month', current_date) + INTERVAL '1' MONTH AS date)) AS days_in_month
)
SELECT
  u.budget_id,
  u.name,
  b.time_unit,
  u.project_id,
  u.workspace_id,
  u.currency,
  u."limit" AS month_limit,
  round(u.cost, 2) AS actual,
  round(u.cost / m.days_complete * m.days_in_month, 2) AS forecast_month_end,
  round(100 * u.cost / nullif(u."limit", 0), 1) AS actual_pct,
  round(100 * (u.cost / m.days_complete * m.days_in_month) / nullif(u."limit", 0), 1) AS forecast_pct
FROM budget_usage u
CROSS JOIN latest l
CROSS JOIN calendar m
LEFT JOIN budgets b ON b.budget_id = u.budget_id AND b.snapshot_date = u.snapshot_date
WHERE u.snapshot_date = l.snapshot_date
  AND u.billed_month = substr(CAST(m.first_day AS varchar), 1, 7)
ORDER BY forecast_pct DESC
