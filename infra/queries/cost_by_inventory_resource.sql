-- The 100 resources that cost most over the last 30 days, joined by resource id
-- (costs.resource = cloud_services.reference_resource_id) to the latest inventory snapshot
-- of the last 7 days. Inventory columns are NULL for resources no collector reports.
WITH inventory AS (
  SELECT
    s.reference_resource_id,
    max(s.name) AS name,
    max(s.cloud_service_group) AS cloud_service_group,
    max(s.cloud_service_type) AS cloud_service_type,
    max(s.instance_type) AS instance_type,
    max(s.project_id) AS project_id
  FROM cloud_services s
  WHERE s.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
    AND s.snapshot_date = (
      SELECT max(l.snapshot_date)
      FROM cloud_services l
      WHERE l.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
    )
    AND s.reference_resource_id IS NOT NULL
  GROUP BY s.reference_resource_id
),
resource_costs AS (
  SELECT c.resource, c.provider, c.currency, sum(c.cost) AS total_cost
  FROM costs c
  WHERE c.billed_date >= CAST(current_date - INTERVAL '30' DAY AS varchar)
    AND c.resource IS NOT NULL
  GROUP BY c.resource, c.provider, c.currency
)
SELECT
  r.resource,
  r.provider,
  i.name,
  i.cloud_service_group,
  i.cloud_service_type,
  i.instance_type,
  i.project_id,
  r.currency,
  round(r.total_cost, 2) AS total_cost
FROM resource_costs r
LEFT JOIN inventory i ON r.resource = i.reference_resource_id
ORDER BY r.total_cost DESC
LIMIT 100
