-- Daily cost by provider over the last 30 days, one line per day, provider and currency.
SELECT
  c.billed_date,
  c.provider,
  c.currency,
  round(sum(c.cost), 2) AS total_cost
FROM costs c
WHERE c.billed_date >= CAST(current_date - INTERVAL '30' DAY AS varchar)
GROUP BY c.billed_date, c.provider, c.currency
ORDER BY c.billed_date, total_cost DESC
