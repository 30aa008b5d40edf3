-- gemmtune tuning database, schema version 3: each result's relative error on the wide-range
-- verification inputs (docs/precision.md) beside rel_error's on the random ones, NULL where it
-- was not measured, and the best_results view with it.

ALTER TABLE results ADD COLUMN wide_error REAL;

-- As in version 1, with wide_error as the last column: a read-only open of a version 2 file
-- shows its view with a NULL wide_error in the same place (db/src/schema.cpp).
DROP VIEW best_results;
CREATE VIEW best_results AS
WITH ranked AS (
  SELECT r.id, r.sweep_id, r.problem_id, r.config_id, r.median_ms, r.min_ms, r.max_ms, r.tflops,
         r.rel_error, r.wide_error, s.gpu_model_id,
         row_number() OVER (PARTITION BY s.gpu_model_id, r.problem_id
                            ORDER BY r.median_ms, r.id) AS place
  FROM results AS r
  JOIN sweeps AS s ON s.id = r.sweep_id
  WHERE r.status = 'ok'
)
SELECT x.gpu_model_id, g.name AS gpu_name, g.cc_major, g.cc_minor, g.sm_count,
       x.problem_id, p.dtype, p.op_a, p.op_b, p.m, p.n, p.k, p.batch, p.alignment,
       x.config_id, c.family, c.name AS config_name,
       x.id AS result_id, x.sweep_id, x.median_ms, x.min_ms, x.max_ms, x.tflops, x.rel_error,
       b.median_ms AS cublas_median_ms, b.tflops AS cublas_tflops,
       b.median_ms / x.median_ms AS speedup_vs_cublas,
       x.wide_error
FROM ranked AS x
JOIN gpu_models AS g ON g.id = x.gpu_model_id
JOIN problems AS p ON p.id = x.problem_id
JOIN configs AS c ON c.id = x.config_id
LEFT JOIN baselines AS b
  ON b.sweep_id = x.sweep_id AND b.problem_id = x.problem_id AND b.library = 'cublas'
WHERE x.place = 1;
