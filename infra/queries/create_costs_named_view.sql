-- Creates (or replaces) the view costs_named: every costs column plus workspace_name, project_name,
-- project_group_path (names from the root, e.g. 'Platform / Payments'), service_account_name and
-- billing_account_id/_name (the trusted account). Each name comes from the latest snapshot of the
-- last 7 days that holds its id (only those snapshot days are read, so the bytes scanned stay
-- bounded; an id in no snapshot of the week has no name); virtual workspace ids still unmapped in a
-- cost row are mapped first through data_source_accounts. Run it after the first inventory export;
-- see docs/tables.md, "Names". Cost rows come through the view costs_combined (run it first).
CREATE OR REPLACE VIEW costs_named AS
WITH
routing AS (
  SELECT v_workspace_id, workspace_id FROM (
    SELECT a.v_workspace_id, a.workspace_id,
      row_number() OVER (PARTITION BY a.v_workspace_id ORDER BY a.snapshot_date DESC, a.exported_at DESC) AS pick
    FROM data_source_accounts a
    WHERE a.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
      AND a.v_workspace_id IS NOT NULL AND a.workspace_id IS NOT NULL
  ) latest WHERE pick = 1
),
workspace_names AS (
  SELECT workspace_id, name FROM (
    SELECT w.workspace_id, w.name,
      row_number() OVER (PARTITION BY w.workspace_id ORDER BY w.snapshot_date DESC, w.exported_at DESC) AS pick
    FROM workspaces w
    WHERE w.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
),
project_names AS (
  SELECT project_id, name, project_group_id FROM (
    SELECT p.project_id, p.name, p.project_group_id,
      row_number() OVER (PARTITION BY p.project_id ORDER BY p.snapshot_date DESC, p.exported_at DESC) AS pick
    FROM projects p
    WHERE p.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
),
group_names AS (
  SELECT project_group_id, name, parent_group_id FROM (
    SELECT g.project_group_id, g.name, g.parent_group_id,
      row_number() OVER (PARTITION BY g.project_group_id ORDER BY g.snapshot_date DESC, g.exported_at DESC) AS pick
    FROM project_groups g
    WHERE g.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
),
account_names AS (
  SELECT service_account_id, name, trusted_account_id FROM (
    SELECT s.service_account_id, s.name, s.trusted_account_id,
      row_number() OVER (PARTITION BY s.service_account_id ORDER BY s.snapshot_date DESC, s.exported_at DESC) AS pick
    FROM service_accounts s
    WHERE s.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
),
payer_names AS (
  SELECT trusted_account_id, account_id, name FROM (
    SELECT t.trusted_account_id, t.account_id, t.name,
      row_number() OVER (PARTITION BY t.trusted_account_id ORDER BY t.snapshot_date DESC, t.exported_at DESC) AS pick
    FROM trusted_accounts t
    WHERE t.snapshot_date >= CAST(current_date - INTERVAL '7' DAY AS varchar)
  ) latest WHERE pick = 1
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
  COALESCE(c.workspace_id, r.workspace_id) AS workspace_id,
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
  t.account_id AS billing_account_id,
  t.name AS billing_account_name
FROM costs_combined c
LEFT JOIN routing r ON r.v_workspace_id = c.v_workspace_id
LEFT JOIN workspace_names w ON w.workspace_id = COALESCE(c.workspace_id, r.workspace_id)
LEFT JOIN project_names p ON p.project_id = c.project_id
LEFT JOIN group_names g1 ON g1.project_group_id = p.project_group_id
LEFT JOIN group_names g2 ON g2.project_group_id = g1.parent_group_id
LEFT JOIN group_names g3 ON g3.project_group_id = g2.parent_group_id
LEFT JOIN group_names g4 ON g4.project_group_id = g3.parent_group_id
LEFT JOIN group_names g5 ON g5.project_group_id = g4.parent_group_id
LEFT JOIN account_names s ON s.service_account_id = c.service_account_id
LEFT JOIN payer_names t ON t.trusted_account_id = s.trusted_account_id
