-- gemmtune tuning database, schema version 5: configs keyed by kernel family. A config's name is
-- unique within its family, so that families (each with knob columns of its own) share the
-- table; a knob column holds NULL in the rows of a family that does not declare it.
--
-- SQLite changes no table's key in place: `configs` is built anew, keeping every row and its id
-- (results refer to them; db/src/schema.cpp turns foreign-key enforcement off around this
-- migration, as SQLite's procedure for such changes asks). The view that reads `configs` is
-- dropped first and made again last, unchanged: renaming a table checks every view.

DROP VIEW best_results;

CREATE TABLE configs_v5 (
  id      INTEGER PRIMARY KEY,
  family  TEXT    NOT NULL,
  name    TEXT    NOT NULL,
  op_a    TEXT    NOT NULL CHECK (op_a IN ('n', 't')),
  op_b    TEXT    NOT NULL CHECK (op_b IN ('n', 't')),
  UNIQUE (family, name)
);

-- @knob-columns: the knob columns of `configs` follow the gemmtune that wrote the file, so no
-- fixed script can name them: db/src/schema.cpp adds each to configs_v5 here, in their order, as
-- a nullable INTEGER.

INSERT INTO configs_v5 SELECT * FROM configs;
DROP TABLE configs;
ALTER TABLE configs_v5 RENAME TO configs;

-- As in version 3.
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
