-- The 50 resources that cost most over the last 30 days, with their product, account and region.
SELECT
  c.provider,
  c.account_id,
  c.resource,
  max(c.product) AS product,
  max(c.region_code) AS region_code,
  c.currency,
  round(sum(c.cost), 2) AS total_cost
FROM costs c
WHERE c.billed_date >= CAST(current_date - INTERVAL '30' DAY AS varchar)
  AND c.resource IS NOT NULL
GROUP BY c.provider, c.account_id, c.resource, c.currency
ORDER BY total_cost DESC
LIMIT 50
