-- Spend in USD by tenant, billed month, provider and project over the 12 months Cloudforet keeps,
-- this one included: each tenant's spend_usd_by_month_last_12_months with a tenant column. Every
-- cost is converted at its own tenant's rate for its month, derived from that tenant's unified
-- costs as the tenant's view exchange_rates derives it (each tenant's Cloudforet has its own rates),
-- else at the tenant's latest known rate of the 12 months (rate_is_latest_known). rate_is_fallback:
-- a rate used equals Cloudforet's hard-coded default. is_confirmed: the tenant's Cloudforet closed
-- the month. Reads the year's daily cost objects of every tenant (the portfolio has no
-- compaction state), each tenant's once; filter on tenant to read one.
WITH unified AS (
  SELECT
    u.tenant,
    u.billed_month,
    u.currency,
    u.is_confirmed,
    u.cost_krw,
    u.cost_usd,
    u.cost_jpy,
    CASE u.currency WHEN 'KRW' THEN u.cost_krw WHEN 'USD' THEN u.cost_usd WHEN 'JPY' THEN u.cost_jpy END AS origin_cost
  FROM unified_costs u
  WHERE u.billed_month >= substr(CAST(date_trunc('month', current_date) - INTERVAL '11' MONTH AS varchar), 1, 7)
),
direct AS (
  SELECT
    u.tenant,
    u.billed_month,
    u.currency AS from_currency,
    t.to_currency,
    sum(CASE t.to_currency WHEN 'KRW' THEN u.cost_krw WHEN 'USD' THEN u.cost_usd WHEN 'JPY' THEN u.cost_jpy END)
      / sum(u.origin_cost) AS rate
  FROM unified u
  CROSS JOIN (VALUES ('KRW'), ('USD'), ('JPY')) AS t (to_currency)
  WHERE u.origin_cost IS NOT NULL AND u.origin_cost <> 0
  GROUP BY u.tenant, u.billed_month, u.currency, t.to_currency
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
  -- Each direct rate, and its inverse (preference 1) for the opposite pair.
  SELECT
    d.tenant,
    d.billed_month,
    CASE k.preference WHEN 0 THEN d.from_currency ELSE d.to_currency END AS from_currency,
    CASE k.preference WHEN 0 THEN d.to_currency ELSE d.from_currency END AS to_currency,
    CASE k.preference WHEN 0 THEN d.rate ELSE 1 / d.rate END AS rate,
    d.rate_is_fallback,
    k.preference
  FROM flagged d
  CROSS JOIN (VALUES (0), (1)) AS k (preference)
  WHERE k.preference = 0 OR d.from_currency <> d.to_currency
),
rates AS (
  -- A direct rate when the tenant's month has one, else the inverse.
  SELECT
    c.tenant,
    c.billed_month,
    c.from_currency,
    c.to_currency,
    min_by(c.rate, c.preference) AS rate,
    min_by(c.rate_is_fallback, c.preference) AS rate_is_fallback
  FROM candidates c
  GROUP BY c.tenant, c.billed_month, c.from_currency, c.to_currency
),
by_month AS (
  SELECT
    r.tenant,
    r.billed_month,
    r.from_currency,
    max(CASE WHEN r.to_currency = 'USD' THEN r.rate END) AS to_usd,
    bool_or(r.rate_is_fallback) AS rate_is_fallback
  FROM rates r
  GROUP BY r.tenant, r.billed_month, r.from_currency
),
latest AS (
  SELECT
    m.tenant,
    m.from_currency,
    max(m.billed_month) AS billed_month,
    max_by(m.to_usd, m.billed_month) AS to_usd,
    max_by(m.rate_is_fallback, m.billed_month) AS rate_is_fallback
  FROM by_month m
  GROUP BY m.tenant, m.from_currency
),
month_status AS (
  SELECT u.tenant, u.billed_month, bool_or(u.is_confirmed = 'true') AS is_confirmed
  FROM unified u
  GROUP BY u.tenant, u.billed_month
),
converted AS (
  SELECT
    c.tenant,
    c.billed_month,
    c.provider,
    c.project_id,
    c.cost * CASE WHEN c.currency = 'USD' THEN 1 ELSE coalesce(m.to_usd, l.to_usd) END AS cost_usd,
    m.billed_month IS NULL AS rate_is_latest_known,
    coalesce(m.rate_is_fallback, l.rate_is_fallback, false) AS rate_is_fallback
  FROM costs c
  LEFT JOIN by_month m
    ON m.tenant = c.tenant AND m.billed_month = c.billed_month AND m.from_currency = c.currency
  LEFT JOIN latest l ON l.tenant = c.tenant AND l.from_currency = c.currency
  WHERE c.billed_date >= CAST(date_trunc('month', current_date) - INTERVAL '11' MONTH AS varchar)
)
SELECT
  c.tenant,
  c.billed_month,
  c.provider,
  c.project_id,
  round(sum(c.cost_usd), 2) AS total_cost_usd,
  coalesce(bool_or(s.is_confirmed), false) AS is_confirmed,
  bool_or(c.rate_is_fallback) AS rate_is_fallback,
  bool_or(c.rate_is_latest_known) AS rate_is_latest_known
FROM converted c
LEFT JOIN month_status s ON s.tenant = c.tenant AND s.billed_month = c.billed_month
GROUP BY c.tenant, c.billed_month, c.provider, c.project_id
ORDER BY c.tenant, c.billed_month DESC, total_cost_usd DESC
