-- gemmtune tuning database, schema version 4: the ceilings measured on each GPU model (the FP32
-- FMA rate and the device-to-device copy bandwidth, tuner::measure_ceilings), measured once per
-- GPU model and stored, so that every "% of peak" and roofline reads against what the GPU reaches
-- rather than its datasheet.

CREATE TABLE gpu_ceilings (
  gpu_model_id     INTEGER PRIMARY KEY REFERENCES gpu_models (id),
  fp32_tflops      REAL    NOT NULL CHECK (fp32_tflops > 0),  -- FMA loop, 2 FLOP per FMA
  copy_gbs         REAL    NOT NULL CHECK (copy_gbs > 0),     -- bytes read + written per s / 1e9
  measured_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),  -- UTC
  gemmtune_version TEXT    NOT NULL DEFAULT ''
);
