-- A year's spend in USD by month, provider and project: the 12 months Cloudforet keeps, this one
-- included, each data source's currency converted at the month's Cloudforet rate (view
-- costs_converted; run the create_view_ queries once first). is_confirmed: Cloudforet closed the
-- month (final figures); a month without it may still change. The window is named by billed_month
-- as well as billed_date, so Athena reads the year's partitions only, however long the history kept.
SELECT
  c.billed_month,
  c.provider,
  c.project_id,
  round(sum(c.cost_usd), 2) AS total_cost_usd,
  coalesce(bool_or(s.is_confirmed), false) AS is_confirmed,
  bool_or(c.rate_is_fallback) AS rate_is_fallback,
  bool_or(c.rate_is_latest_known) AS rate_is_latest_known
FROM costs_converted c
LEFT JOIN month_status s ON s.billed_month = c.billed_month
WHERE c.billed_date >= CAST(date_trunc('month', current_date) - INTERVAL '11' MONTH AS varchar)
  AND c.billed_month >= substr(CAST(date_trunc('month', current_date) - INTERVAL '11' MONTH AS varchar), 1, 7)
GROUP BY c.billed_month, c.provider, c.project_id
ORDER BY c.billed_month DESC, total_cost_usd DESC
