-- gemmtune tuning database, schema version 1: GPU models, sweeps, problems, kernel configs,
-- results, cuBLAS baselines and the best_results view. docs/database.md explains every column.
-- A migration runs inside one transaction and is never edited once released: change the schema
-- by adding the next numbered file (and listing it in db/CMakeLists.txt and src/schema.cpp).

-- A GPU model. The key is (name, cc_major, cc_minor, sm_count); the rest describes it.
CREATE TABLE gpu_models (
  id                   INTEGER PRIMARY KEY,
  name                 TEXT    NOT NULL,
  cc_major             INTEGER NOT NULL,
  cc_minor             INTEGER NOT NULL,
  sm_count             INTEGER NOT NULL,
  memory_bytes         INTEGER NOT NULL DEFAULT 0,
  l2_bytes             INTEGER NOT NULL DEFAULT 0,
  smem_per_block_optin INTEGER NOT NULL DEFAULT 0,
  clock_khz            INTEGER NOT NULL DEFAULT 0,
  UNIQUE (name, cc_major, cc_minor, sm_count)
);

-- One run of `gemmtune sweep` on one GPU, with the environment it ran in.
CREATE TABLE sweeps (
  id               INTEGER PRIMARY KEY,
  uid              TEXT    NOT NULL UNIQUE,  -- random: names the sweep across merged files
  gpu_model_id     INTEGER NOT NULL REFERENCES gpu_models (id),
  started_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),  -- UTC
  finished_at      TEXT,                     -- NULL while running, or when the sweep died
  hostname         TEXT    NOT NULL DEFAULT '',
  command_line     TEXT    NOT NULL DEFAULT '',
  strategy         TEXT    NOT NULL DEFAULT '',
  gemmtune_version TEXT    NOT NULL DEFAULT '',
  driver_version   TEXT    NOT NULL DEFAULT '',
  runtime_version  TEXT    NOT NULL DEFAULT '',
  nvrtc_version    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX sweeps_by_gpu_model ON sweeps (gpu_model_id);

-- A problem class: results are stored, and looked up, under it.
CREATE TABLE problems (
  id        INTEGER PRIMARY KEY,
  dtype     TEXT    NOT NULL DEFAULT 'f32',
  op_a      TEXT    NOT NULL CHECK (op_a IN ('n', 't')),
  op_b      TEXT    NOT NULL CHECK (op_b IN ('n', 't')),
  m         INTEGER NOT NULL CHECK (m > 0),
  n         INTEGER NOT NULL CHECK (n > 0),
  k         INTEGER NOT NULL CHECK (k > 0),
  batch     INTEGER NOT NULL DEFAULT 1 CHECK (batch > 0),
  alignment INTEGER NOT NULL CHECK (alignment IN (1, 2, 4)),  -- widest vector the data allows
  UNIQUE (dtype, op_a, op_b, m, n, k, batch, alignment)
);

-- A kernel configuration: every template parameter is a column; name is the procedural name.
CREATE TABLE configs (
  id      INTEGER PRIMARY KEY,
  family  TEXT    NOT NULL,
  name    TEXT    NOT NULL UNIQUE,
  op_a    TEXT    NOT NULL CHECK (op_a IN ('n', 't')),
  op_b    TEXT    NOT NULL CHECK (op_b IN ('n', 't')),
  bm      INTEGER NOT NULL,
  bn      INTEGER NOT NULL,
  bk      INTEGER NOT NULL,
  wm      INTEGER NOT NULL,
  wn      INTEGER NOT NULL,
  tm      INTEGER NOT NULL,
  tn      INTEGER NOT NULL,
  stages  INTEGER NOT NULL,
  vec     INTEGER NOT NULL,
  pad     INTEGER NOT NULL,
  split_k INTEGER NOT NULL,
  raster  INTEGER NOT NULL,
  occupancy INTEGER NOT NULL DEFAULT 1
);

-- Every outcome of trying a config on a problem in a sweep; failures are kept with their cause.
CREATE TABLE results (
  id          INTEGER PRIMARY KEY,
  sweep_id    INTEGER NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  problem_id  INTEGER NOT NULL REFERENCES problems (id),
  config_id   INTEGER NOT NULL REFERENCES configs (id),
  status      TEXT    NOT NULL CHECK (status IN ('ok', 'invalid', 'compile_failed', 'launch_failed',
                                                 'wrong_result', 'timeout', 'pruned')),
  median_ms   REAL,
  min_ms      REAL,
  max_ms      REAL,
  repetitions INTEGER NOT NULL DEFAULT 0,
  tflops      REAL,
  rel_error   REAL,
  registers   INTEGER,
  spill_bytes INTEGER,
  smem_bytes  INTEGER,
  error       TEXT    NOT NULL DEFAULT '',
  recorded_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (sweep_id, problem_id, config_id),
  CHECK (status <> 'ok' OR (median_ms IS NOT NULL AND median_ms >= 0))
);
-- Serves best_results (SQLite pushes the problem filter into its window) and resume checks.
CREATE INDEX results_by_problem_config ON results (problem_id, config_id);

-- A library's time for the same problem in the same sweep (cuBLAS), for the speedup ratio.
CREATE TABLE baselines (
  id          INTEGER PRIMARY KEY,
  sweep_id    INTEGER NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  problem_id  INTEGER NOT NULL REFERENCES problems (id),
  library     TEXT    NOT NULL DEFAULT 'cublas',
  median_ms   REAL,
  min_ms      REAL,
  max_ms      REAL,
  tflops      REAL,
  recorded_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (sweep_id, problem_id, library)
);

-- The best ok result (lowest median; the older result on a tie) of each (GPU model, problem),
-- with the cuBLAS median of the sweep that measured it. speedup_vs_cublas > 1: faster than cuBLAS.
CREATE VIEW best_results AS
WITH ranked AS (
  SELECT r.id, r.sweep_id, r.problem_id, r.config_id, r.median_ms, r.min_ms, r.max_ms, r.tflops,
         r.rel_error, s.gpu_model_id,
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
       b.median_ms / x.median_ms AS speedup_vs_cublas
FROM ranked AS x
JOIN gpu_models AS g ON g.id = x.gpu_model_id
JOIN problems AS p ON p.id = x.problem_id
JOIN configs AS c ON c.id = x.config_id
LEFT JOIN baselines AS b
  ON b.sweep_id = x.sweep_id AND b.problem_id = x.problem_id AND b.library = 'cublas'
WHERE x.place = 1;
