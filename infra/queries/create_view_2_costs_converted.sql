-- Creates (or replaces) the view costs_converted: every daily cost row with cost_usd, cost_krw and
-- cost_jpy at its month's rate (views exchange_rates and costs_combined: run
-- create_view_1_exchange_rates and create_costs_combined_view first).
-- A month without unified costs yet takes the latest known rate: rate_is_latest_known.
-- rate_is_fallback: a rate used equals Cloudforet's hard-coded default.
CREATE OR REPLACE VIEW costs_converted AS
WITH by_month AS (
  SELECT
    r.billed_month,
    r.from_currency,
    max(CASE WHEN r.to_currency = 'USD' THEN r.rate END) AS to_usd,
    max(CASE WHEN r.to_currency = 'KRW' THEN r.rate END) AS to_krw,
    max(CASE WHEN r.to_currency = 'JPY' THEN r.rate END) AS to_jpy,
    bool_or(r.rate_is_fallback) AS rate_is_fallback
  FROM exchange_rates r
  GROUP BY r.billed_month, r.from_currency
),
latest AS (
  SELECT
    m.from_currency,
    max(m.billed_month) AS billed_month,
    max_by(m.to_usd, m.billed_month) AS to_usd,
    max_by(m.to_krw, m.billed_month) AS to_krw,
    max_by(m.to_jpy, m.billed_month) AS to_jpy,
    max_by(m.rate_is_fallback, m.billed_month) AS rate_is_fallback
  FROM by_month m
  -- The latest known rate is one of the 12 months Cloudforet keeps (this one included): so the
  -- months of unified costs read for it do not grow with the history kept.
  WHERE m.billed_month >= substr(CAST(date_trunc('month', current_date) - INTERVAL '11' MONTH AS varchar), 1, 7)
  GROUP BY m.from_currency
)
SELECT
  c.*,
  c.cost * CASE WHEN c.currency = 'USD' THEN 1 ELSE coalesce(m.to_usd, l.to_usd) END AS cost_usd,
  c.cost * CASE WHEN c.currency = 'KRW' THEN 1 ELSE coalesce(m.to_krw, l.to_krw) END AS cost_krw,
  c.cost * CASE WHEN c.currency = 'JPY' THEN 1 ELSE coalesce(m.to_jpy, l.to_jpy) END AS cost_jpy,
  coalesce(m.billed_month, l.billed_month) AS rate_month,
  m.billed_month IS NULL AS rate_is_latest_known,
  coalesce(m.rate_is_fallback, l.rate_is_fallback, false) AS rate_is_fallback
FROM costs_combined c
-- billed_month is the billed date's month (cost-analysis manager/cost_manager.py create_cost sets
-- both from billed_at); joined on the column too, a window on c.billed_month (which the windowed
-- saved queries name to prune compacted months) also bounds the rates read.
LEFT JOIN by_month m
  ON m.billed_month = c.billed_month AND m.billed_month = substr(c.billed_date, 1, 7)
  AND m.from_currency = c.currency
LEFT JOIN latest l ON l.from_currency = c.currency
