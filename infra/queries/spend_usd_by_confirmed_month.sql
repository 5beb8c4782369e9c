-- Spend in USD by confirmed (closed) month, provider and project: final figures only
-- (views costs_converted and month_status; run the create_view_ queries once first).
SELECT
  substr(c.billed_date, 1, 7) AS billed_month,
  c.provider,
  c.project_id,
  round(sum(c.cost_usd), 2) AS total_cost_usd,
  bool_or(c.rate_is_fallback) AS rate_is_fallback
FROM costs_converted c
JOIN month_status s ON s.billed_month = substr(c.billed_date, 1, 7)
WHERE s.is_confirmed
GROUP BY substr(c.billed_date, 1, 7), c.provider, c.project_id
ORDER BY billed_month DESC, total_cost_usd DESC
