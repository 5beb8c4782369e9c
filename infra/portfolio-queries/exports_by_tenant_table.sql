-- Run health by tenant and table, from each tenant's run ledger rollup (export_units_latest: the latest
-- export of each unit): the newest partition exported (a day, a month or a snapshot date), when the
-- table was last exported, and its units. A tenant whose newest export is old has stopped exporting;
-- a table missing for a tenant was never exported there.
SELECT
  l.tenant,
  l.table_name,
  max(l.partition_value) AS newest_partition,
  max(l.exported_at) AS last_exported_at,
  count(*) AS units
FROM export_units_latest l
GROUP BY l.tenant, l.table_name
ORDER BY l.tenant, l.table_name
