-- Each budget against its own period, from the latest budgets / budget_usage snapshot of the last
-- 7 days, in the budget's currency. MONTHLY: this month's limit against the month-to-date cost;
-- TOTAL: the whole budget against the cost of every month from its start to now. utilization_rate:
-- actual as a percent of the limit. The forecast is LINEAR to the period's end (month end, or the
-- budget's last day): actual / days complete x days in the period (Cloudforet aggregates once a day
-- at 00:00 UTC, so today is not in the actual). No seasonality; early in a period it swings widely.
WITH latest AS (
  SELECT max(snapshot_date) AS snapshot_date
  FROM budget_usage
  WHERE snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
),
usage AS (
  -- A domain app's and workspace apps' snapshots may sit side by side: one row per budget and month.
  SELECT budget_id, billed_month, name, cost, "limit", currency, project_id, workspace_id FROM (
    SELECT u.*, row_number() OVER (PARTITION BY u.budget_id, u.billed_month ORDER BY u.exported_at DESC) AS pick
    FROM budget_usage u
    CROSS JOIN latest l
    -- The window again, as a literal bound: the latest day is in it, and a literal lets the engine
    -- skip older snapshot partitions at planning (a join alone is pruned at run time, if at all).
    WHERE u.snapshot_date = l.snapshot_date
      AND u.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) x WHERE pick = 1
),
budget AS (
  SELECT budget_id, time_unit, "start", "end", "limit" FROM (
    SELECT b.*, row_number() OVER (PARTITION BY b.budget_id ORDER BY b.exported_at DESC) AS pick
    FROM budgets b
    CROSS JOIN latest l
    WHERE b.snapshot_date = l.snapshot_date
      AND b.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) x WHERE pick = 1
),
spent AS (
  SELECT
    u.budget_id,
    max(u.name) AS name,
    max(u.project_id) AS project_id,
    max(u.workspace_id) AS workspace_id,
    max(u.currency) AS currency,
    sum(coalesce(u.cost, 0)) AS cost_to_date,
    sum(CASE WHEN u.billed_month = substr(CAST(current_date AS varchar), 1, 7) THEN coalesce(u.cost, 0) END)
      AS cost_this_month,
    max(CASE WHEN u.billed_month = substr(CAST(current_date AS varchar), 1, 7) THEN u."limit" END)
      AS limit_this_month
  FROM usage u
  WHERE u.billed_month <= substr(CAST(current_date AS varchar), 1, 7)
  GROUP BY u.budget_id
),
periods AS (
  SELECT
    s.*,
    coalesce(b.time_unit, 'MONTHLY') AS time_unit,
    b."start" AS period_start,
    b."end" AS period_end,
    CASE WHEN b.time_unit = 'TOTAL' THEN b."limit" ELSE s.limit_this_month END AS budget_limit,
    CASE WHEN b.time_unit = 'TOTAL' THEN s.cost_to_date ELSE coalesce(s.cost_this_month, 0) END AS actual,
    CASE WHEN b.time_unit = 'TOTAL' THEN CAST(b."start" || '-01' AS date)
      ELSE CAST(date_trunc('month', current_date) AS date) END AS first_day,
    CASE WHEN b.time_unit = 'TOTAL' THEN last_day_of_month(CAST(b."end" || '-01' AS date))
      ELSE last_day_of_month(current_date) END AS last_day
  FROM spent s
  LEFT JOIN budget b ON b.budget_id = s.budget_id
),
paced AS (
  SELECT
    p.*,
    date_diff('day', p.first_day, p.last_day) + 1 AS days_in_period,
    least(greatest(date_diff('day', p.first_day, current_date), 1), date_diff('day', p.first_day, p.last_day) + 1)
      AS days_complete
  FROM periods p
)
SELECT
  budget_id,
  name,
  time_unit,
  project_id,
  workspace_id,
  currency,
  period_start,
  period_end,
  budget_limit,
  round(actual, 2) AS actual,
  round(100 * actual / nullif(budget_limit, 0), 2) AS utilization_rate,
  CAST(last_day AS varchar) AS forecast_for,
  round(actual / days_complete * days_in_period, 2) AS forecast,
  round(100 * (actual / days_complete * days_in_period) / nullif(budget_limit, 0), 2) AS forecast_pct
FROM paced
ORDER BY forecast_pct DESC, budget_id
