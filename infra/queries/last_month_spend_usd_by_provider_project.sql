-- Last month's spend in USD by provider and project: the last complete calendar month, every data
-- source's currency converted at that month's Cloudforet rate (view costs_converted; run the
-- create_view_ queries once first). Flags say when a rate is a fallback or a guess.
SELECT
  substr(c.billed_date, 1, 7) AS billed_month,
  c.provider,
  c.project_id,
  round(sum(c.cost_usd), 2) AS total_cost_usd,
  bool_or(c.rate_is_fallback) AS rate_is_fallback,
  bool_or(c.rate_is_latest_known) AS rate_is_latest_known
FROM costs_converted c
WHERE c.billed_date >= CAST(date_trunc('month', current_date) - INTERVAL '1' MONTH AS varchar)
  AND c.billed_date < CAST(date_trunc('month', current_date) AS varchar)
  -- The month's partition too: a compacted month (costs_monthly) is pruned by billed_month only.
  AND c.billed_month = substr(CAST(date_trunc('month', current_date) - INTERVAL '1' MONTH AS varchar), 1, 7)
GROUP BY substr(c.billed_date, 1, 7), c.provider, c.project_id
ORDER BY total_cost_usd DESC
