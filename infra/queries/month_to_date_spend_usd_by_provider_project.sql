-- Month-to-date spend in USD by provider and project, every data source's currency converted at
-- the month's Cloudforet rate (view costs_converted; run the create_view_ queries once first).
-- For KRW or JPY use cost_krw or cost_jpy. Flags say when a rate is a fallback or a guess.
SELECT
  c.provider,
  c.project_id,
  round(sum(c.cost_usd), 2) AS total_cost_usd,
  bool_or(c.rate_is_fallback) AS rate_is_fallback,
  bool_or(c.rate_is_latest_known) AS rate_is_latest_known
FROM costs_converted c
WHERE c.billed_date >= CAST(date_trunc('month', current_date) AS varchar)
  -- The same window by month: it prunes the compacted months (costs_monthly) as billed_date the days.
  AND c.billed_month >= substr(CAST(date_trunc('month', current_date) AS varchar), 1, 7)
GROUP BY c.provider, c.project_id
ORDER BY total_cost_usd DESC
