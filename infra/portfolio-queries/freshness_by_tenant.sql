-- Freshness by tenant and data source: the newest billed day exported in the last 60 days and the
-- days exported in them. A tenant or data source missing here has exported nothing in 60 days.
SELECT
  c.tenant,
  c.data_source_id,
  max(c.billed_date) AS newest_billed_date,
  count(DISTINCT c.billed_date) AS days_exported
FROM costs c
WHERE c.billed_date >= CAST(current_date - INTERVAL '60' DAY AS varchar)
GROUP BY c.tenant, c.data_source_id
ORDER BY c.tenant, newest_billed_date, c.data_source_id
