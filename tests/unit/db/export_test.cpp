// CSV and JSON export, checked by parsing the output back with strict parsers written here.
#include <map>
#include <sstream>
#include <variant>

#include "gemmtune/db/export.hpp"
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

// ---- an RFC 4180 reader ----
using CsvRows = std::vector<std::vector<std::string>>;

CsvRows parse_csv(const std::string& text) {
  CsvRows rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      if (!field.empty()) throw std::runtime_error("quote inside an unquoted field");
      quoted = was_quoted = true;
    } else if (c == ',') {
      row.push_back(field), field.clear(), was_quoted = false;
    } else if (c == '\n') {
      row.push_back(field), field.clear(), was_quoted = false;
      rows.push_back(row), row.clear();
    } else {
      if (was_quoted) throw std::runtime_error("text after a closing quote");
      field += c;
    }
  }
  if (quoted || !row.empty() || !field.empty()) throw std::runtime_error("unterminated CSV");
  return rows;
}

// ---- a strict JSON reader for arrays of flat objects ----
struct Null {};
using Value = std::variant<Null, double, std::string>;
using Object = std::map<std::string, Value>;

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}
  std::vector<Object> array_of_objects() {
    std::vector<Object> out;
    expect('[');
    if (peek() == ']') return ++i_, end(out);
    do out.push_back(object());
    while (take(','));
    expect(']');
    return end(out);
  }

 private:
  std::vector<Object>& end(std::vector<Object>& out) {
    ws();
    if (i_ != s_.size()) fail("trailing text");
    return out;
  }
  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error("JSON: " + why + " at byte " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool take(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected ") + c);
  }
  Object object() {
    Object o;
    expect('{');
    if (take('}')) return o;
    do {
      std::string key = string();
      expect(':');
      o[key] = value();
    } while (take(','));
    expect('}');
    return o;
  }
  Value value() {
    const char c = peek();
    if (c == '"') return string();
    if (s_.compare(i_, 4, "null") == 0) return i_ += 4, Null{};
    std::size_t used = 0;
    const double v = std::stod(s_.substr(i_, 40), &used);
    if (used == 0) fail("bad value");
    i_ += used;
    return v;
  }
  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80)
      out += char(cp);
    else if (cp < 0x800)
      out += char(0xc0 | cp >> 6), out += char(0x80 | (cp & 63));
    else
      out += char(0xe0 | cp >> 12), out += char(0x80 | ((cp >> 6) & 63)),
          out += char(0x80 | (cp & 63));
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("raw control character in a string");
      if (c >= 0x80) {  // must be well-formed UTF-8
        const int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
        if (n == 0 || c > 0xf4) fail("byte that is not UTF-8");
        out += char(c);
        for (int j = 1; j < n; ++j) {
          if (i_ >= s_.size() || (static_cast<unsigned char>(s_[i_]) & 0xc0) != 0x80)
            fail("bad UTF-8");
          out += s_[i_++];
        }
        continue;
      }
      if (c != '\\') {
        out += char(c);
        continue;
      }
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u':
          put_utf8(out, std::stoul(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          break;
        default: fail("bad escape");
      }
    }
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

// What a JSON reader gets back for `raw`: invalid UTF-8 bytes become the code point of the byte.
std::string json_decoded(const std::string& raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c == 0xc3 && i + 1 < raw.size()) {
      out += raw.substr(i, 2);
      ++i;
      continue;
    }  // é in tests
    if (c >= 0x80)
      out += char(0xc0 | c >> 6), out += char(0x80 | (c & 63));
    else
      out += char(c);
  }
  return out;
}

const std::string kNasty = std::string("say \"hi\", then\na newline,\r\nCRLF, tab\t, NUL ") +
                           std::string(1, '\0') + ", bytes \xff\xfe\x80, and \xc3\xa9";

class Export : public OneGpuDbTest {
 protected:
  void SetUp() override {
    OneGpuDbTest::SetUp();
    other_gpu_ = db_->upsert_gpu_model(sample_gpu("NVIDIA A100", 108));
    const Id sweep = db_->begin_sweep(sweep_info(gpu_, kNasty));
    const Id other_sweep = db_->begin_sweep(sweep_info(other_gpu_));
    std::vector<Result> batch;
    for (int p = 0; p < 3; ++p) {
      const Id problem = db_->upsert_problem(sample_problem(128 << p));
      db_->record_baseline(sweep, cublas(problem, 2.0));
      for (int c = 0; c < 4; ++c)
        batch.push_back(ok_result(problem, db_->upsert_config(sample_config(c)), 1.0 + c));
    }
    Result bad;
    bad.problem_id = batch[0].problem_id;
    bad.config_id = db_->upsert_config(sample_config(9));
    bad.status = Status::compile_failed;
    bad.error = kNasty;
    batch.push_back(bad);
    db_->record_results(sweep, batch);
    db_->record_results(other_sweep, std::span(batch).first(2));
  }
  std::string run(void (*fn)(const Database&, ExportFormat, std::ostream&, std::optional<Id>),
                  ExportFormat f, std::optional<Id> gpu = std::nullopt) {
    std::ostringstream out;
    fn(*db_, f, out, gpu);
    return out.str();
  }
  Id other_gpu_ = 0;
};

TEST_F(Export, ResultsCsvParsesBackExactly) {
  const CsvRows rows = parse_csv(run(export_results, ExportFormat::csv));
  ASSERT_EQ(rows.size(), 1u + 13u + 2u);  // header, 13 results on one GPU, 2 on the other
  const auto& header = rows[0];
  for (const auto& row : rows) ASSERT_EQ(row.size(), header.size());
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<std::size_t>(it - header.begin());
  };
  for (const KnobColumn& knob : sample_families()[0].knobs) col(knob.name);
  EXPECT_EQ(rows[1][col("wide_error")], "");  // NULL: not measured
  EXPECT_EQ(rows[13][col("error")], kNasty);
  EXPECT_EQ(rows[13][col("status")], "compile_failed");
  EXPECT_EQ(rows[13][col("median_ms")], "");  // NULL
  EXPECT_EQ(rows[1][col("median_ms")], "1");
  EXPECT_EQ(rows[1][col("min_ms")], "0.9");
  EXPECT_EQ(rows[1][col("gpu_name")], "NVIDIA H200");
  EXPECT_EQ(rows[1][col("bm")], std::to_string(sample_config(0).knobs.at("bm")));
  EXPECT_EQ(parse_csv(run(export_results, ExportFormat::csv, other_gpu_)).size(), 3u);
}

TEST_F(Export, ResultsJsonIsValidAndEscaped) {
  const std::string text = run(export_results, ExportFormat::json);
  const auto rows = JsonReader(text).array_of_objects();
  ASSERT_EQ(rows.size(), 15u);
  EXPECT_EQ(std::get<std::string>(rows[12].at("error")), json_decoded(kNasty));
  EXPECT_TRUE(std::holds_alternative<Null>(rows[12].at("median_ms")));
  EXPECT_EQ(std::get<double>(rows[0].at("median_ms")), 1.0);
  EXPECT_EQ(std::get<double>(rows[0].at("m")), 128.0);
  EXPECT_EQ(std::get<std::string>(rows[0].at("status")), "ok");
  EXPECT_EQ(text.find('\xff'), std::string::npos);  // never a raw invalid byte
  EXPECT_NE(text.find("\\u00ff\\u00fe\\u0080"), std::string::npos);
  EXPECT_NE(text.find("\\u0000"), std::string::npos);
  EXPECT_NE(text.find("\xc3\xa9"), std::string::npos);  // valid UTF-8 stays as it is
}

TEST_F(Export, BestsCsvAndJson) {
  const CsvRows csv = parse_csv(run(export_bests, ExportFormat::csv));
  ASSERT_EQ(csv.size(), 1u + 3u + 1u);  // 3 problems on one GPU, 1 on the other
  const auto& header = csv[0];
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(col("speedup_vs_cublas"), header.size());
  ASSERT_LT(col("raster"), header.size());
  ASSERT_LT(col("wide_error"), header.size());
  EXPECT_EQ(csv[1][col("config_name")], sample_config(0).name);
  EXPECT_EQ(csv[1][col("speedup_vs_cublas")], "2");
  const auto json = JsonReader(run(export_bests, ExportFormat::json, gpu_)).array_of_objects();
  ASSERT_EQ(json.size(), 3u);
  EXPECT_EQ(std::get<double>(json[2].at("cublas_median_ms")), 2.0);
  EXPECT_EQ(JsonReader(run(export_bests, ExportFormat::json, 999)).array_of_objects().size(), 0u);
}

TEST(ExportEscaping, CsvField) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(csv_field("\xff\xfe"), "\xff\xfe");
}

TEST(ExportEscaping, JsonString) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("q\"b\\"), "\"q\\\"b\\\\\"");
  EXPECT_EQ(json_string("\n\r\t\b\f\x01\x1f"), "\"\\n\\r\\t\\b\\f\\u0001\\u001f\"");
  EXPECT_EQ(json_string("\xff"), "\"\\u00ff\"");
  EXPECT_EQ(json_string("\xc0\xaf"), "\"\\u00c0\\u00af\"");                        // overlong '/'
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");             // a surrogate
  EXPECT_EQ(json_string("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"");  // > U+10FFFF
  EXPECT_EQ(json_string("\xe2\x82"), "\"\\u00e2\\u0082\"");                        // cut short
  EXPECT_EQ(json_string("\xe2\x82\xac \xf0\x9f\x98\x80"), "\"\xe2\x82\xac \xf0\x9f\x98\x80\"");
}

}  // namespace
}  // namespace gemmtune::db::test
