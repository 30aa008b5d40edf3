-- gemmtune tuning database, schema version 2: the compiled-kernel cache, and the kernel template
-- version of each sweep (so that results of outdated templates can be pruned).

ALTER TABLE sweeps ADD COLUMN template_hash TEXT NOT NULL DEFAULT '';

-- NVRTC output, keyed by a hash of template source + compile options + arch + NVRTC version
-- (computed by the runtime). content_hash is FNV-1a 64 of cubin: reads re-check it.
CREATE TABLE binaries (
  id            INTEGER PRIMARY KEY,
  key           TEXT    NOT NULL UNIQUE,
  arch          TEXT    NOT NULL,
  nvrtc_version TEXT    NOT NULL,
  config_name   TEXT    NOT NULL,
  lowered_name  TEXT    NOT NULL,
  cubin         BLOB    NOT NULL,
  content_hash  TEXT    NOT NULL,
  registers     INTEGER,
  spill_bytes   INTEGER,
  smem_bytes    INTEGER,
  created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
