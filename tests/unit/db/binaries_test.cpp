// The binary cache: round trip, and a corrupted blob is a reported miss, never returned.
#include "support/sha256.hpp"
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

using Binaries = ScratchDirTest;

Binary sample_binary(const std::string& key, std::size_t size = 4096) {
  Binary b;
  b.key = key;
  b.arch = "sm_90";
  b.nvrtc_version = "13.0";
  b.config_name = sample_config(0).name;
  b.lowered_name = "_ZN8gemmtune5sgemmILi128EEEvNS_10KernelArgsE";
  for (std::size_t i = 0; i < size; ++i) b.cubin.push_back(static_cast<std::byte>(i * 7 + 3));
  b.registers = 96;
  b.spill_bytes = 0;
  b.smem_bytes = 33024;
  return b;
}

TEST_F(Binaries, ContentHashIsFnv1a64) {
  EXPECT_EQ(content_hash(std::vector<std::byte>{}), "cbf29ce484222325");
  EXPECT_EQ(content_hash(std::string_view()), "cbf29ce484222325");
  const std::string a = "a";
  std::vector<std::byte> bytes;
  for (char c : a) bytes.push_back(static_cast<std::byte>(c));
  EXPECT_EQ(content_hash(bytes), "af63dc4c8601ec8c");
}

// FIPS 180-4's examples, and every length across the padding's block boundaries against the
// tests' own implementation (support/sha256.hpp).
TEST_F(Binaries, Sha256IsFips180) {
  EXPECT_EQ(sha256_hex(std::string_view()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(std::string_view("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256_hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string text;
  for (int n = 0; n <= 200; ++n, text += char(n * 37 + 11))
    ASSERT_EQ(sha256_hex(std::string_view(text)), ::gemmtune::test::sha256(text)) << n << " bytes";
}

// The stored hash is SHA-256; a row with a 16-digit FNV-1a hash (stored before 2026-12-02, and
// forgeable) is a plain miss, not damage, and storing the kernel again replaces it.
TEST_F(Binaries, StoredHashIsSha256AndAnFnvRowIsAMiss) {
  Database db(path("tuning.db"), OpenMode::read_write);
  const Binary b = sample_binary("key-1");
  db.put_binary(b);
  Connection raw(db.path(), OpenMode::read_only);
  Statement st(raw, "SELECT content_hash FROM binaries WHERE key = 'key-1'");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.get_text(0), sha256_hex(b.cubin));

  exec_raw(db.path(), "UPDATE binaries SET content_hash = '" + content_hash(b.cubin) +
                          "' WHERE key = 'key-1'");
  const BinaryLookup old = db.get_binary("key-1");
  EXPECT_FALSE(old.binary);
  EXPECT_TRUE(old.corrupt.empty()) << old.corrupt;
  EXPECT_TRUE(db.check().ok());
  db.put_binary(b);
  EXPECT_TRUE(db.get_binary("key-1").binary);
}

TEST_F(Binaries, RoundTripAndMiss) {
  Database db(path("tuning.db"), OpenMode::read_write);
  const Binary b = sample_binary("key-1");
  db.put_binary(b);
  const BinaryLookup hit = db.get_binary("key-1");
  ASSERT_TRUE(hit.binary);
  EXPECT_TRUE(hit.corrupt.empty());
  EXPECT_EQ(hit.binary->cubin, b.cubin);
  EXPECT_EQ(hit.binary->lowered_name, b.lowered_name);
  EXPECT_EQ(hit.binary->registers, 96);
  EXPECT_EQ(hit.binary->smem_bytes, 33024);
  const BinaryLookup miss = db.get_binary("key-2");
  EXPECT_FALSE(miss.binary);
  EXPECT_TRUE(miss.corrupt.empty());
}

TEST_F(Binaries, CorruptBlobIsAReportedMissAndPutRepairsIt) {
  Database db(path("tuning.db"), OpenMode::read_write);
  db.put_binary(sample_binary("key-1"));
  db.put_binary(sample_binary("key-2"));
  // Flip one byte in the middle of the stored cubin, behind the API's back.
  exec_raw(
      db.path(),
      "UPDATE binaries SET cubin = CAST(substr(cubin, 1, 99) || x'ff' || substr(cubin, 101) AS "
      "BLOB) "
      "WHERE key = 'key-1'");
  ASSERT_EQ(scalar(db.path(), "SELECT length(cubin) FROM binaries WHERE key = 'key-1'"), 4096);
  const BinaryLookup lookup = db.get_binary("key-1");
  EXPECT_FALSE(lookup.binary);
  EXPECT_NE(lookup.corrupt.find("key-1"), std::string::npos) << lookup.corrupt;
  EXPECT_NE(lookup.corrupt.find("corrupt"), std::string::npos) << lookup.corrupt;
  EXPECT_NE(lookup.corrupt.find(db.path()), std::string::npos) << lookup.corrupt;
  EXPECT_TRUE(db.get_binary("key-2").binary);  // the other entry is fine

  const CheckReport report = db.check();
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_NE(report.problems[0].find("key-1"), std::string::npos);

  db.put_binary(sample_binary("key-1"));  // the recompiled kernel replaces the bad entry
  EXPECT_TRUE(db.get_binary("key-1").binary);
  EXPECT_TRUE(db.check().ok());
}

TEST_F(Binaries, ClearDropsEveryBinaryAndNeedsReadWrite) {
  {
    Database db(path("tuning.db"), OpenMode::read_write);
    db.put_binary(sample_binary("key-1"));
    db.put_binary(sample_binary("key-2"));
    EXPECT_EQ(db.clear_binaries(), 2);
    EXPECT_FALSE(db.get_binary("key-1").binary);
    EXPECT_FALSE(db.get_binary("key-2").binary);
    EXPECT_EQ(db.clear_binaries(), 0);
    db.put_binary(sample_binary("key-3"));
  }
  Database read_only(path("tuning.db"), OpenMode::read_only);
  expect_error([&] { read_only.clear_binaries(); }, {"read-only", "clear the binary cache"});
  EXPECT_TRUE(read_only.get_binary("key-3").binary);
}

TEST_F(Binaries, TruncatedBlobIsAMissToo) {
  Database db(path("tuning.db"), OpenMode::read_write);
  db.put_binary(sample_binary("key-1"));
  exec_raw(db.path(), "UPDATE binaries SET cubin = substr(cubin, 1, 100) WHERE key = 'key-1'");
  EXPECT_FALSE(db.get_binary("key-1").binary);
  EXPECT_FALSE(db.get_binary("key-1").corrupt.empty());
}

}  // namespace
}  // namespace gemmtune::db::test
