// The measured ceilings of schema version 4: stored once per GPU model, refused when they are no
// measurement, read back, merged to a file whose GPU model has none, and absent (not an error)
// in a version 3 file read as it is.
#include <cmath>
#include <limits>

#include "gemmtune/db/schema.hpp"
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

using Ceilings = OneGpuDbTest;

MeasuredCeilingsRow measured(double tflops, double gbs) {
  MeasuredCeilingsRow c;
  c.fp32_tflops = tflops;
  c.copy_gbs = gbs;
  c.gemmtune_version = "test";
  return c;
}

TEST_F(Ceilings, StoredOncePerGpuModel) {
  EXPECT_FALSE(db_->ceilings(gpu_));
  EXPECT_TRUE(db_->record_ceilings(gpu_, measured(58.5, 4224)));
  EXPECT_FALSE(db_->record_ceilings(gpu_, measured(40.0, 3000))) << "a second measurement";
  const auto c = db_->ceilings(gpu_);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->fp32_tflops, 58.5);
  EXPECT_DOUBLE_EQ(c->copy_gbs, 4224);
  EXPECT_EQ(c->gemmtune_version, "test");
  EXPECT_EQ(c->measured_at.size(), 24u) << c->measured_at;  // 2026-12-02T07:40:33.123Z

  // Another GPU model has its own.
  const Id other = db_->upsert_gpu_model(sample_gpu("NVIDIA H100 80GB HBM3", 132));
  EXPECT_FALSE(db_->ceilings(other));
  EXPECT_TRUE(db_->record_ceilings(other, measured(45.0, 2900)));
  EXPECT_DOUBLE_EQ(db_->ceilings(other)->fp32_tflops, 45.0);
  EXPECT_DOUBLE_EQ(db_->ceilings(gpu_)->fp32_tflops, 58.5);
}

TEST_F(Ceilings, RefusesWhatIsNoMeasurement) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& bad : {measured(0, 4000), measured(58, -1), measured(nan, 4000),
                          measured(58, std::numeric_limits<double>::infinity())})
    expect_error([&] { db_->record_ceilings(gpu_, bad); }, {"tuning.db", "positive finite"});
  expect_error([&] { db_->record_ceilings(gpu_ + 100, measured(58, 4000)); },
               {"no GPU model " + std::to_string(gpu_ + 100)});
  EXPECT_FALSE(db_->ceilings(gpu_));
  Database ro(db_->path(), OpenMode::read_only);
  expect_error([&] { ro.record_ceilings(gpu_, measured(58, 4000)); }, {"read-only"});
}

TEST_F(Ceilings, MergeCopiesThemWhereMissing) {
  db_->record_ceilings(gpu_, measured(58.5, 4224));
  const Id h100 = db_->upsert_gpu_model(sample_gpu("NVIDIA H100 80GB HBM3", 132));
  db_->record_ceilings(h100, measured(45.0, 2900));

  Database target(path("target.db"), OpenMode::read_write);
  const Id target_h200 = target.upsert_gpu_model(sample_gpu());
  target.record_ceilings(target_h200, measured(57.0, 4100));  // measured there before: kept
  const MergeStats merged = target.merge_from(db_->path());
  EXPECT_EQ(merged.ceilings, 1);
  EXPECT_DOUBLE_EQ(target.ceilings(target_h200)->fp32_tflops, 57.0);
  const auto target_h100 = target.find_gpu_model(sample_gpu("NVIDIA H100 80GB HBM3", 132));
  ASSERT_TRUE(target_h100);
  const auto c = target.ceilings(*target_h100);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->copy_gbs, 2900);
  EXPECT_EQ(c->measured_at, db_->ceilings(h100)->measured_at);
  EXPECT_EQ(target.merge_from(db_->path()).ceilings, 0) << "merging twice adds nothing";
}

// A version 3 file: read as it is, it has no ceilings; merged in, it brings none; migrated, it
// stores them.
TEST_F(Ceilings, AVersion3FileHasNone) {
  const std::string file = path("v3.db");
  {
    Connection raw(file, OpenMode::read_write);
    migrate(raw, 3);
    raw.exec(
        "INSERT INTO gpu_models (name, cc_major, cc_minor, sm_count) VALUES ('GPU', 8, 0, 108)");
  }
  {
    Database old(file, OpenMode::read_only);
    EXPECT_FALSE(old.ceilings(*old.find_gpu_model(GpuModel{"GPU", 8, 0, 108})));
  }
  EXPECT_EQ(db_->merge_from(file).ceilings, 0);
  Database migrated(file, OpenMode::read_write);
  const Id gpu = *migrated.find_gpu_model(GpuModel{"GPU", 8, 0, 108});
  EXPECT_TRUE(migrated.record_ceilings(gpu, measured(19.5, 1500)));
  EXPECT_DOUBLE_EQ(migrated.ceilings(gpu)->fp32_tflops, 19.5);
}

}  // namespace
}  // namespace gemmtune::db::test
