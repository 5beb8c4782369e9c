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
),
candidates AS (
  -- Each direct rate, and its inverse (preference 1) for the opposite pair: one read of the rates.
  SELECT
    d.billed_month,
    CASE k.preference WHEN 0 THEN d.from_currency ELSE d.to_currency END AS from_currency,
    CASE k.preference WHEN 0 THEN d.to_currency ELSE d.from_currency END AS to_currency,
    CASE k.preference WHEN 0 THEN d.rate ELSE 1 / d.rate END AS rate,
    d.exchange_date,
    d.source,
    d.confirmed,
    d.rate_is_fallback,
    CASE k.preference WHEN 0 THEN 'direct' ELSE 'inverse' END AS derivation,
    k.preference
  FROM flagged d
  CROSS JOIN (VALUES (0), (1)) AS k (preference)
  WHERE k.preference = 0 OR d.from_currency <> d.to_currency
)
-- A direct rate when the month has one, else the inverse: one row per month and currency pair,
-- chosen by grouping (not NOT EXISTS), so a window on billed_month prunes every read of
-- unified_costs.
SELECT
  c.billed_month,
  c.from_currency,
  c.to_currency,
  min_by(c.rate, c.preference) AS rate,
  min_by(c.exchange_date, c.preference) AS exchange_date,
  min_by(c.source, c.preference) AS source,
  min_by(c.confirmed, c.preference) AS confirmed,
  min_by(c.rate_is_fallback, c.preference) AS rate_is_fallback,
  min_by(c.derivation, c.preference) AS derivation
FROM candidates c
GROUP BY c.billed_month, c.from_currency, c.to_currency
