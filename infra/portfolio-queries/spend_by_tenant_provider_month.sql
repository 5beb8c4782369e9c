-- Spend by tenant, provider and billed month over the last 12 months, in each cost's own currency,
-- from every tenant's exported cost days: each tenant's rows are read once, from its own folder (the
-- tenant partition), so the totals add up to the tenants' own. Filter on tenant to read one.
SELECT
  c.tenant,
  c.provider,
  substr(c.billed_date, 1, 7) AS billed_month,
  c.currency,
  round(sum(c.cost), 2) AS total_cost,
  count(*) AS cost_rows
FROM costs c
WHERE c.billed_date >= CAST(date_trunc('month', current_date) - INTERVAL '11' MONTH AS varchar)
GROUP BY c.tenant, c.provider, substr(c.billed_date, 1, 7), c.currency
ORDER BY c.tenant, billed_month, c.provider, c.currency
