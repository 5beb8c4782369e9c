-- Creates (or replaces) the view costs_named_as_of_day: costs_named's columns, but each name as it
-- was on the cost's own billed_date: from the newest snapshot taken on or before that day, and for
-- days before an id's first snapshot from that first snapshot (names_snapshot_date says which
-- project snapshot was used; null when the project is in no snapshot). It reads identity_names, the
-- snapshots kept as validity ranges (one row per id and run of consecutive snapshot days with the
-- same name), so each cost row meets one range per rename of its ids, not one per snapshot day.
-- Open ends are written as dates no day passes (not as OR … IS NULL), so an engine joins on the id.
-- It reads costs through costs_combined (confirmed months from their compacted objects): run
-- create_costs_combined_view first, and this after the first inventory export; docs/tables.md, "Names".
CREATE OR REPLACE VIEW costs_named_as_of_day AS
WITH
ranges AS (
  SELECT kind, id, name, ref, first_seen, last_seen, valid_from, valid_to FROM identity_names
)
SELECT
  c.cost_id,
  c.cost,
  c.usage_quantity,
  c.usage_unit,
  c.provider,
  c.region_code,
  c.region_key,
  c.product,
  c.usage_type,
  c.resource,
  c.tags,
  c.additional_info,
  c.data,
  c.domain_id,
  COALESCE(c.workspace_id, r.ref) AS workspace_id,
  c.v_workspace_id,
  c.project_id,
  c.service_account_id,
  c.data_source_id,
  c.account_id,
  c.billed_year,
  c.billed_month,
  c.currency,
  c.exported_at,
  c.billed_date,
  w.name AS workspace_name,
  p.name AS project_name,
  -- Five levels of project groups from the root; a deeper tree loses its top levels here.
  NULLIF(concat_ws(' / ', g5.name, g4.name, g3.name, g2.name, g1.name), '') AS project_group_path,
  s.name AS service_account_name,
  t.ref AS billing_account_id,
  t.name AS billing_account_name,
  -- Every day from first_seen to last_seen has a snapshot of the project: the newest one on or
  -- before the cost's day is that day, or the range's last (after it), or its first (before it).
  CASE
    WHEN p.id IS NULL THEN NULL
    WHEN c.billed_date < p.first_seen THEN p.first_seen
    WHEN c.billed_date > p.last_seen THEN p.last_seen
    ELSE c.billed_date
  END AS names_snapshot_date
FROM costs_combined c
LEFT JOIN ranges r ON r.kind = 'routing' AND r.id = c.v_workspace_id
  AND c.billed_date >= coalesce(r.valid_from, '0000-01-01') AND c.billed_date < coalesce(r.valid_to, '9999-12-31')
LEFT JOIN ranges w ON w.kind = 'workspace' AND w.id = COALESCE(c.workspace_id, r.ref)
  AND c.billed_date >= coalesce(w.valid_from, '0000-01-01') AND c.billed_date < coalesce(w.valid_to, '9999-12-31')
LEFT JOIN ranges p ON p.kind = 'project' AND p.id = c.project_id
  AND c.billed_date >= coalesce(p.valid_from, '0000-01-01') AND c.billed_date < coalesce(p.valid_to, '9999-12-31')
LEFT JOIN ranges g1 ON g1.kind = 'group' AND g1.id = p.ref
  AND c.billed_date >= coalesce(g1.valid_from, '0000-01-01') AND c.billed_date < coalesce(g1.valid_to, '9999-12-31')
LEFT JOIN ranges g2 ON g2.kind = 'group' AND g2.id = g1.ref
  AND c.billed_date >= coalesce(g2.valid_from, '0000-01-01') AND c.billed_date < coalesce(g2.valid_to, '9999-12-31')
LEFT JOIN ranges g3 ON g3.kind = 'group' AND g3.id = g2.ref
  AND c.billed_date >= coalesce(g3.valid_from, '0000-01-01') AND c.billed_date < coalesce(g3.valid_to, '9999-12-31')
LEFT JOIN ranges g4 ON g4.kind = 'group' AND g4.id = g3.ref
  AND c.billed_date >= coalesce(g4.valid_from, '0000-01-01') AND c.billed_date < coalesce(g4.valid_to, '9999-12-31')
LEFT JOIN ranges g5 ON g5.kind = 'group' AND g5.id = g4.ref
  AND c.billed_date >= coalesce(g5.valid_from, '0000-01-01') AND c.billed_date < coalesce(g5.valid_to, '9999-12-31')
LEFT JOIN ranges s ON s.kind = 'account' AND s.id = c.service_account_id
  AND c.billed_date >= coalesce(s.valid_from, '0000-01-01') AND c.billed_date < coalesce(s.valid_to, '9999-12-31')
LEFT JOIN ranges t ON t.kind = 'payer' AND t.id = s.ref
  AND c.billed_date >= coalesce(t.valid_from, '0000-01-01') AND c.billed_date < coalesce(t.valid_to, '9999-12-31')
