-- Creates (or replaces) the view month_status: per billed month, whether Cloudforet confirmed
-- (closed) it, since when (the date it aggregated the confirmed figures), and the exchange date.
-- A month absent here has no unified costs exported yet.
CREATE OR REPLACE VIEW month_status AS
SELECT
  u.billed_month,
  bool_or(u.is_confirmed = 'true') AS is_confirmed,
  min(CASE WHEN u.is_confirmed = 'true' THEN u.aggregation_date END) AS confirmed_since,
  max(u.exchange_date) AS exchange_date,
  max(u.exchange_source) AS exchange_source,
  max(u.aggregation_date) AS aggregation_date,
  count(*) AS unified_cost_rows
FROM unified_costs u
GROUP BY u.billed_month
