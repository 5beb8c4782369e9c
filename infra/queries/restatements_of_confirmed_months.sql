-- Restatements of confirmed months: every published cost day of a month Cloudforet has confirmed
-- (closed) that an export later replaced or removed, with the old and new figures and the reason.
-- Run create_view_3_month_status first. The history outlives the bucket's noncurrent versions.
SELECT
  r.data_source_id,
  r.billed_date,
  m.confirmed_since,
  substr(r.restated_at, 1, 10) >= m.confirmed_since AS restated_after_confirmation,
  r.reason,
  r.outcome,
  r.old_rows,
  r.new_rows,
  r.old_cost_sum,
  r.new_cost_sum,
  r.new_cost_sum - r.old_cost_sum AS cost_change,
  r.restated_at,
  r.run_id
FROM cost_restatements r
JOIN month_status m ON m.billed_month = substr(r.billed_date, 1, 7)
WHERE m.is_confirmed
ORDER BY r.billed_date DESC, r.restated_at DESC
