-- FOCUS: billed and effective cost of the last 30 days (by ChargePeriodStart) per provider, service
-- and sub account, in each billing currency, from the FOCUS rows (view focus_combined: run
-- create_focus_combined_view first; confirmed months come from their compacted objects). The window
-- is named on x_billing_period as well, so Athena reads only the billing periods it spans, however
-- long the history kept: add the same to your own FOCUS questions.
SELECT
  f.ProviderName,
  f.ServiceName,
  f.SubAccountId,
  f.SubAccountName,
  f.BillingCurrency,
  round(sum(f.BilledCost), 2) AS billed_cost,
  round(sum(f.EffectiveCost), 2) AS effective_cost,
  count(*) AS charges
FROM focus_combined f
WHERE f.ChargePeriodStart >= CAST(current_date - INTERVAL '30' DAY AS timestamp)
  AND f.x_billing_period >= substr(CAST(current_date - INTERVAL '30' DAY AS varchar), 1, 7)
GROUP BY f.ProviderName, f.ServiceName, f.SubAccountId, f.SubAccountName, f.BillingCurrency
ORDER BY billed_cost DESC, f.ProviderName, f.ServiceName, f.SubAccountId
