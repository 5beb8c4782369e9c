-- Cost over the last 30 days by the value of the resource tag "team" (NULL: untagged).
-- To group by another tag, change the key in the JSON path: '$["cost-center"]'.
SELECT
  json_extract_scalar(c.tags, '$["team"]') AS team,
  c.currency,
  round(sum(c.cost), 2) AS total_cost
FROM costs c
WHERE c.billed_date >= CAST(current_date - INTERVAL '30' DAY AS varchar)
GROUP BY 1, 2
ORDER BY total_cost DESC
