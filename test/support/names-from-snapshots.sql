-- The oracle of test/system/athena/name-ranges.test.ts: costs_named_as_of_day as it was before identity_names
-- (infra/queries/create_costs_named_as_of_day_view.sql until issue 40), reading every snapshot day
-- of the six identity tables. The ranges must name every cost row as this does.
CREATE OR REPLACE VIEW names_from_snapshots AS
WITH
snapshots AS (
  SELECT 'workspace' AS kind, workspace_id AS id, name, CAST(NULL AS varchar) AS ref, snapshot_date, exported_at
  FROM workspaces
  UNION ALL
  SELECT 'project', project_id, name, project_group_id, snapshot_date, exported_at FROM projects
  UNION ALL
  SELECT 'group', project_group_id, name, parent_group_id, snapshot_date, exported_at FROM project_groups
  UNION ALL
  SELECT 'account', service_account_id, name, trusted_account_id, snapshot_date, exported_at FROM service_accounts
  UNION ALL
  SELECT 'payer', trusted_account_id, name, account_id, snapshot_date, exported_at FROM trusted_accounts
  UNION ALL
  SELECT 'routing', v_workspace_id, CAST(NULL AS varchar), workspace_id, snapshot_date, exported_at
  FROM data_source_accounts
  WHERE v_workspace_id IS NOT NULL AND workspace_id IS NOT NULL
),
one_per_day AS (
  -- A domain app's and workspace apps' snapshots may sit side by side in one day: one row per id.
  SELECT kind, id, name, ref, snapshot_date FROM (
    SELECT s.kind, s.id, s.name, s.ref, s.snapshot_date,
      row_number() OVER (PARTITION BY s.kind, s.id, s.snapshot_date ORDER BY s.exported_at DESC) AS pick
    FROM snapshots s
  ) latest WHERE pick = 1
),
ranges AS (
  SELECT kind, id, name, ref, snapshot_date,
    -- The first snapshot of an id also names its earlier days.
    CASE WHEN row_number() OVER (PARTITION BY kind, id ORDER BY snapshot_date) = 1 THEN NULL
      ELSE snapshot_date END AS valid_from,
    lead(snapshot_date) OVER (PARTITION BY kind, id ORDER BY snapshot_date) AS valid_to
  FROM one_per_day
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
  p.snapshot_date AS names_snapshot_date
FROM costs c
LEFT JOIN ranges r ON r.kind = 'routing' AND r.id = c.v_workspace_id
  AND (r.valid_from IS NULL OR c.billed_date >= r.valid_from) AND (r.valid_to IS NULL OR c.billed_date < r.valid_to)
LEFT JOIN ranges w ON w.kind = 'workspace' AND w.id = COALESCE(c.workspace_id, r.ref)
  AND (w.valid_from IS NULL OR c.billed_date >= w.valid_from) AND (w.valid_to IS NULL OR c.billed_date < w.valid_to)
LEFT JOIN ranges p ON p.kind = 'project' AND p.id = c.project_id
  AND (p.valid_from IS NULL OR c.billed_date >= p.valid_from) AND (p.valid_to IS NULL OR c.billed_date < p.valid_to)
LEFT JOIN ranges g1 ON g1.kind = 'group' AND g1.id = p.ref
  AND (g1.valid_from IS NULL OR c.billed_date >= g1.valid_from) AND (g1.valid_to IS NULL OR c.billed_date < g1.valid_to)
LEFT JOIN ranges g2 ON g2.kind = 'group' AND g2.id = g1.ref
  AND (g2.valid_from IS NULL OR c.billed_date >= g2.valid_from) AND (g2.valid_to IS NULL OR c.billed_date < g2.valid_to)
LEFT JOIN ranges g3 ON g3.kind = 'group' AND g3.id = g2.ref
  AND (g3.valid_from IS NULL OR c.billed_date >= g3.valid_from) AND (g3.valid_to IS NULL OR c.billed_date < g3.valid_to)
LEFT JOIN ranges g4 ON g4.kind = 'group' AND g4.id = g3.ref
  AND (g4.valid_from IS NULL OR c.billed_date >= g4.valid_from) AND (g4.valid_to IS NULL OR c.billed_date < g4.valid_to)
LEFT JOIN ranges g5 ON g5.kind = 'group' AND g5.id = g4.ref
  AND (g5.valid_from IS NULL OR c.billed_date >= g5.valid_from) AND (g5.valid_to IS NULL OR c.billed_date < g5.valid_to)
LEFT JOIN ranges s ON s.kind = 'account' AND s.id = c.service_account_id
  AND (s.valid_from IS NULL OR c.billed_date >= s.valid_from) AND (s.valid_to IS NULL OR c.billed_date < s.valid_to)
LEFT JOIN ranges t ON t.kind = 'payer' AND t.id = s.ref
  AND (t.valid_from IS NULL OR c.billed_date >= t.valid_from) AND (t.valid_to IS NULL OR c.billed_date < t.valid_to)
