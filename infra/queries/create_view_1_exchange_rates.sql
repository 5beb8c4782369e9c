-- Creates (or replaces) the view exchange_rates: each month's rate from every origin currency to
-- KRW, USD and JPY, derived from unified_costs (cost_<to> / cost_<origin>). Run it before the
-- other create_view_ queries. rate_is_fallback: the rate equals Cloudforet's hard-coded default
-- (its fetch failed, yet it still names its usual source); an inverse of one is flagged too.
-- derivation 'inverse': no row of that origin that month, so 1 / the opposite rate.
CREATE OR REPLACE VIEW exchange_rates AS
WITH unified AS (
  SELECT
    u.billed_month,
    u.currency,
    u.exchange_date,
    u.exchange_source,
    u.is_confirmed,
    u.cost_krw,
    u.cost_usd,
    u.cost_jpy,
    CASE u.currency WHEN 'KRW' THEN u.cost_krw WHEN 'USD' THEN u.cost_usd WHEN 'JPY' THEN u.cost_jpy END AS origin_cost
  FROM unified_costs u
),
direct AS (
  SELECT
    u.billed_month,
    u.currency AS from_currency,
    t.to_currency,
    sum(CASE t.to_currency WHEN 'KRW' THEN u.cost_krw WHEN 'USD' THEN u.cost_usd WHEN 'JPY' THEN u.cost_jpy END)
      / sum(u.origin_cost) AS rate,
    max(u.exchange_date) AS exchange_date,
    max(u.exchange_source) AS source,
    bool_or(u.is_confirmed = 'true') AS confirmed
  FROM unified u
  CROSS JOIN (VALUES ('KRW'), ('USD'), ('JPY')) AS t (to_currency)
  WHERE u.origin_cost IS NOT NULL AND u.origin_cost <> 0
  GROUP BY u.billed_month, u.currency, t.to_currency
),
fallback AS (
  -- cost-analysis global_conf.py DEFAULT_EXCHANGE_RATES
  SELECT * FROM (
    VALUES
      ('KRW', 'USD', 0.0007156681922951203),
      ('USD', 'KRW', 1398.6984203441723),
      ('KRW', 'JPY', 0.10699169521856493),
      ('JPY', 'KRW', 9.34880863101326),
      ('USD', 'JPY', 149.73205030286636),
      ('JPY', 'USD', 0.006686848624246231)
  ) AS f (from_currency, to_currency, rate)
),
flagged AS (
  SELECT d.*, coalesce(abs(d.rate - f.rate) <= 1e-9 * f.rate, false) AS rate_is_fallback
  FROM direct d
  LEFT JOIN fallback f ON f.from_currency = d.from_currency AND f.to_currency = d.to_currency
)
SELECT
  d.billed_month, d.from_currency, d.to_currency, d.rate, d.exchange_date, d.source, d.confirmed,
  d.rate_is_fallback, 'direct' AS derivation
FROM flagged d
UNION ALL
SELECT
  d.billed_month, d.to_currency, d.from_currency, 1 / d.rate, d.exchange_date, d.source, d.confirmed,
  d.rate_is_fallback, 'inverse' AS derivation
FROM flagged d
WHERE d.from_currency <> d.to_currency
  AND NOT EXISTS (
    SELECT 1 FROM direct x
    WHERE x.billed_month = d.billed_month AND x.from_currency = d.to_currency AND x.to_currency = d.from_currency
  )
