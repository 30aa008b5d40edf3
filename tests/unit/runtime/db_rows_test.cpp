// The runtime <-> database rows module: what the tuner and the dispatcher store reads back the same.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "support/fake_cubin.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;

TEST(DbRows, ConfigsRoundTripInEveryLayout) {
  const DeviceLimits sm90 = DeviceLimits::for_arch("sm_90");
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T})
      for (const GemmConfig& c : tuner::coverage_sample(sm90, a, b)) {
        db::KernelConfig row = to_db(c);
        EXPECT_EQ(row.name, config_name(c));
        EXPECT_EQ(row.op_a, op_char(a));
        EXPECT_EQ(row.op_b, op_char(b));
        ASSERT_EQ(row.knobs.size(), std::size(kSgemmKnobs));
        for (const Knob& knob : kSgemmKnobs)
          EXPECT_EQ(row.knobs.at(std::string(knob.name)), knob.get(c)) << knob.name;
        EXPECT_EQ(from_db(row), c) << row.name;
        const GemmConfig narrowed =
            c.fitted_to(Problem::packed(a, b, 7, 13, 11));  // odd: 1-float accesses
        EXPECT_EQ(from_db(to_db(narrowed)), narrowed) << config_name(narrowed);
      }
}

TEST(DbRows, RowsOfAnotherFamilyOrLayoutAreNotConfigs) {
  db::KernelConfig row = to_db(GemmConfig{});
  row.family = "hgemm";
  EXPECT_FALSE(from_db(row));
  row = to_db(GemmConfig{});
  row.op_b = 'x';
  EXPECT_FALSE(from_db(row));
}

// The database's description of the sgemm family follows the knob table: a column per value
// knob, with its default, and the family name its config names start with.
TEST(DbRows, TheSgemmFamilyDeclaresAColumnPerKnob) {
  const db::FamilySchema& family = sgemm_family();
  EXPECT_EQ(family.name, "sgemm");
  EXPECT_TRUE(config_name(GemmConfig{}).starts_with(family.name + "_"));
  ASSERT_EQ(family.knobs.size(), std::size(kSgemmKnobs));
  for (std::size_t i = 0; i < family.knobs.size(); ++i) {
    EXPECT_EQ(family.knobs[i].name, kSgemmKnobs[i].name);
    EXPECT_EQ(family.knobs[i].default_value, kSgemmKnobs[i].default_value());
  }
  ASSERT_EQ(kernel_families().size(), 1u);
  EXPECT_EQ(&kernel_families().front(), &family);
}

// A row read from a file without a knob's column (read without its family) has no value for
// it: the config takes the knob's default, which it ran with.
TEST(DbRows, AKnobARowLacksTakesItsDefault) {
  GemmConfig c;
  c.bm = c.bn = 64, c.wm = c.wn = 32, c.tm = c.tn = 4;
  db::KernelConfig row = to_db(c);
  row.knobs.erase("occupancy");
  row.knobs.erase("bk");
  EXPECT_EQ(from_db(row), c);
  row.knobs.erase("bm");
  const std::optional<GemmConfig> back = from_db(row);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->bm, SgemmKnobs{}.bm);
}

// A database opened with kernel_families() has a column per knob: a fresh file, and one made
// before a knob existed (here k_warps, dropped again), whose configs then hold its default.
TEST(DbRows, ADatabaseOpenedWithTheFamiliesHasAColumnPerKnob) {
  const std::string file = (gemmtune::test::scratch_dir("db_rows_columns") / "tuning.db").string();
  GemmConfig c;
  c.math = 1, c.stages = 3, c.bk = 16;
  db::Id id = 0;
  {
    db::Database db(file, db::OpenMode::read_write, kernel_families());
    id = db.upsert_config(to_db(c));
  }
  const auto columns = [&] {
    db::Connection raw(file, db::OpenMode::read_only);
    db::Statement st(raw, "SELECT name FROM pragma_table_info('configs')");
    std::vector<std::string> names;
    while (st.step()) names.push_back(st.get_text(0));
    return names;
  };
  std::vector<std::string> expected{"id", "family", "name", "op_a", "op_b"};
  for (const Knob& knob : kSgemmKnobs) expected.emplace_back(knob.name);
  EXPECT_EQ(columns(), expected);
  db::Connection(file, db::OpenMode::read_write).exec("ALTER TABLE configs DROP COLUMN k_warps");
  {
    const db::Database old(file, db::OpenMode::read_only, kernel_families());
    EXPECT_EQ(from_db(old.config(id).value()), c);
  }
  db::Database db(file, db::OpenMode::read_write, kernel_families());
  EXPECT_EQ(from_db(db.config(id).value()), c);
  EXPECT_EQ(db.config(id)->knobs.at("k_warps"), 1);
  EXPECT_EQ(columns().back(), "k_warps");
  EXPECT_EQ(db.upsert_config(to_db(c)), id);
}

// A name as NVRTC lowers `c`'s instance (compile_test.cpp checks the prefix against NVRTC).
std::string entry_of(const GemmConfig& c) {
  return entry_name_prefix(c) + "EEvN8gemmtune8GemmArgsE";
}

// The binary cache's smem_bytes holds all of a block's shared memory (dynamic + static), whoever
// stored it: a kernel cached by the dispatcher reads back in the tuner with its static share.
// Registers and the stack frame come from the cubin, spills are bounded by that frame.
TEST(DbRows, BinariesKeepTheirResources) {
  GemmConfig c;
  c.stages = 3, c.bk = 16;
  CompiledKernel k{gemmtune::test::fake_cubin(entry_of(c), 128, 16), entry_of(c), {}};
  k.resources.registers = 128;
  k.resources.spill_stores = 8;
  k.resources.static_smem = 4;
  db::Binary row = to_binary(c, "sm_90", "key", k);
  EXPECT_EQ(row.smem_bytes, c.smem_bytes() + 4);
  EXPECT_EQ(row.registers, 128);
  EXPECT_EQ(row.config_name, config_name(c));
  std::optional<CompiledKernel> back = from_binary(c, "sm_90", row);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cubin, k.cubin);
  EXPECT_EQ(back->lowered_name, k.lowered_name);
  EXPECT_EQ(back->resources.registers, 128);
  EXPECT_EQ(back->resources.spill_stores, 8);
  EXPECT_EQ(back->resources.static_smem, 4);

  row.registers = 1, row.spill_bytes = 4096;  // the row's word is not taken
  back = from_binary(c, "sm_90", row);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->resources.registers, 128);
  EXPECT_EQ(back->resources.spill_stores, 16);
}

// A cached binary is loaded only as what its config derives: the config's row, for this arch and
// NVRTC, with the config's entry point, which the cubin holds. Anything else is a miss that says
// why; GEMMTUNE_NO_CACHED_BINARIES turns every row into a silent miss.
TEST(DbRows, ACachedBinaryIsLoadedOnlyAsItsConfigsKernel) {
  GemmConfig c, other;
  other.stages = 3, other.bk = 16;
  ASSERT_NE(config_name(c), config_name(other));
  const CompiledKernel k{gemmtune::test::fake_cubin(entry_of(c)), entry_of(c), {}};
  const db::Binary good = to_binary(c, "sm_90", "key", k);
  std::string why;
  ASSERT_TRUE(from_binary(c, "sm_90", good, &why)) << why;

  struct Tampered {
    const char* what;
    db::Binary row;
    const char* says;
  };
  std::vector<Tampered> cases;
  cases.push_back(
      {"another config's row", to_binary(other, "sm_90", "key", k), "stored for config"});
  db::Binary arch = good;
  arch.arch = "sm_80";
  cases.push_back({"another arch", arch, "compiled for sm_80"});
  db::Binary nvrtc = good;
  nvrtc.nvrtc_version = "0.1";
  cases.push_back({"another NVRTC", nvrtc, "NVRTC 0.1"});
  db::Binary entry = good;  // another config's kernel, named in the row and present in the cubin
  entry.lowered_name = entry_of(other);
  const std::vector<char> planted = gemmtune::test::fake_cubin(entry_of(other));
  entry.cubin.assign(reinterpret_cast<const std::byte*>(planted.data()),
                     reinterpret_cast<const std::byte*>(planted.data()) + planted.size());
  cases.push_back({"another config's entry point", entry, "is not the config's kernel"});
  db::Binary missing = good;  // the right name, a cubin without it
  missing.cubin = entry.cubin;
  cases.push_back({"a cubin without the entry point", missing, "has no entry point"});
  for (const Tampered& t : cases) {
    why.clear();
    EXPECT_FALSE(from_binary(c, "sm_90", t.row, &why)) << t.what;
    EXPECT_NE(why.find(t.says), std::string::npos) << t.what << ": " << why;
    EXPECT_NE(why.find("not loaded"), std::string::npos) << why;
  }

  setenv("GEMMTUNE_NO_CACHED_BINARIES", "1", 1);
  why.clear();
  EXPECT_FALSE(from_binary(c, "sm_90", good, &why));
  EXPECT_EQ(why, "");
  setenv("GEMMTUNE_NO_CACHED_BINARIES", "0", 1);
  EXPECT_TRUE(from_binary(c, "sm_90", good));
  unsetenv("GEMMTUNE_NO_CACHED_BINARIES");
}

// A cubin comes from a file anyone could have written: offsets and sizes beyond the image are read
// as nothing (no read past its end, no loop over a size of 2^62).
TEST(DbRows, ACubinWithSizesBeyondItsImageIsReadSafely) {
  const std::string entry = "_Z6kernel";
  const std::vector<char> good = gemmtune::test::fake_cubin(entry, 40);
  ASSERT_EQ(cubin_resources(good, entry).registers, 40);
  auto patched = [&](std::uint64_t at, std::uint64_t value) {
    std::vector<char> elf = good;
    std::memcpy(elf.data() + at, &value, sizeof value);
    return elf;
  };
  std::uint64_t shoff = 0;
  std::memcpy(&shoff, good.data() + 0x28, sizeof shoff);
  const std::uint64_t symtab = shoff + 3 * 64, info = shoff + 4 * 64;  // fake_cubin's sections
  EXPECT_EQ(cubin_resources(patched(symtab + 0x20, 1ull << 62), entry).registers,
            40);  // size: bounded
  EXPECT_EQ(cubin_resources(patched(info + 0x18, good.size() - 2), entry).registers, -1);
  EXPECT_EQ(cubin_resources(patched(info + 0x18, ~0ull - 7), entry).registers, -1);
  EXPECT_EQ(cubin_resources(patched(info + 0x20, ~0ull), entry).registers, 40);
  EXPECT_EQ(cubin_resources(patched(0x28, ~0ull - 15), entry).registers, -1);  // section headers
}

TEST(DbRows, EntryNamesAreDerivedFromTheConfig) {
  GemmConfig c;
  const std::string prefix = entry_name_prefix(c);
  EXPECT_EQ(prefix.rfind("_ZN8gemmtune5sgemmILi", 0), 0u) << prefix;
  EXPECT_TRUE(is_entry_of(c, prefix + "EEvN8gemmtune8GemmArgsE"));
  EXPECT_TRUE(is_entry_of(c, prefix + "Lb0ELb0EEEvN8gemmtune8GemmArgsE"));  // defaulted flags
  EXPECT_FALSE(is_entry_of(c, prefix + "Lb1EEEvN8gemmtune8GemmArgsE"));     // a flag set
  EXPECT_FALSE(is_entry_of(c, prefix));
  EXPECT_FALSE(is_entry_of(c, ""));
  EXPECT_FALSE(is_entry_of(c, "_Z5sgemm"));
  GemmConfig other = c;
  other.bm *= 2;
  EXPECT_FALSE(is_entry_of(other, prefix + "EEvN8gemmtune8GemmArgsE"));
}

// Repack has no column (nor do the access widths): the name carries it, and from_db reads it
// back; the plain and the repack instance are two rows with the same knob columns.
TEST(DbRows, RepackConfigsRoundTripThroughTheName) {
  GemmConfig c;
  c.op_b = Op::T, c.repack = true;
  const GemmConfig fitted = c.fitted_to(Problem::packed(Op::N, Op::T, 2999, 3001, 2003));
  ASSERT_TRUE(fitted.repack);
  const db::KernelConfig row = to_db(fitted);
  EXPECT_TRUE(row.name.ends_with("_g4x4x1_q")) << row.name;
  EXPECT_EQ(from_db(row), fitted) << row.name;
  GemmConfig plain = fitted;
  plain.repack = false;
  const db::KernelConfig plain_row = to_db(plain);
  EXPECT_NE(plain_row.name, row.name);
  EXPECT_EQ(plain_row.knobs, row.knobs);
  EXPECT_EQ(from_db(plain_row), plain);
}
