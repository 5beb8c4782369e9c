-- Active cloud services per provider, group and type on each snapshot day of the last 90 days.
SELECT
  s.snapshot_date,
  s.provider,
  s.cloud_service_group,
  s.cloud_service_type,
  count(*) AS resources
FROM cloud_services s
WHERE s.snapshot_date >= CAST(current_date - INTERVAL '90' DAY AS varchar)
  AND s.state = 'ACTIVE'
GROUP BY s.snapshot_date, s.provider, s.cloud_service_group, s.cloud_service_type
ORDER BY s.snapshot_date, resources DESC
