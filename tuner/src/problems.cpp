#include "gemmtune/tuner/problems.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include "gemmtune/error.hpp"
#include "gemmtune/tuner/shape.hpp"

namespace gemmtune::tuner {

std::string problem_label(const ProblemSpec& p) {
  return gemmtune::problem_label(p.op_a, p.op_b, p.m, p.n, p.k, p.batch);
}

static void check_batch(int batch, const std::string& where) {
  if (batch < 1 || batch > 65535)
    throw Error(Status::kInvalidArgument,
                where + "batch " + std::to_string(batch) + " must be 1 to 65535");
}

std::vector<ProblemSpec> problems_from_shapes(const std::vector<std::string>& shapes,
                                              const std::string& layout, int batch) {
  check_batch(batch, "");
  auto layouts = parse_layouts(layout);
  std::vector<ProblemSpec> out;
  for (const auto& text : shapes) {
    Shape s = parse_shape(text);
    for (auto [oa, ob] : layouts) out.push_back({oa, ob, s.m, s.n, s.k, batch});
  }
  return out;
}

static std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The columns of a problem file's rows, and its only header (in any case).
static constexpr const char* kRowFormat = "m,n,k[,layout][,batch]";
static constexpr const char* kHeader[] = {"m", "n", "k", "layout", "batch"};

static bool is_header(const std::vector<std::string>& cols) {
  if (cols.size() < 3 || cols.size() > std::size(kHeader)) return false;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    std::string name = cols[i];
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (name != kHeader[i]) return false;
  }
  return true;
}

// A piece of a problem file as an error message shows it: about `limit` characters at most,
// control characters, backslashes and bytes beyond ASCII as \xNN (a terminal shows them, never
// acts on them). The limit counts what is shown, so an escaped line is no longer than a plain one.
static std::string shown(const std::string& text, std::size_t limit = 80) {
  std::string out;
  std::size_t used = 0;
  for (; used < text.size() && out.size() < limit; ++used) {
    const unsigned char c = text[used];
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      static constexpr char kHex[] = "0123456789abcdef";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    } else {
      out += char(c);
    }
  }
  if (used < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

// The longest line a problem file may have (a row is a few dozen bytes), and the most problems:
// a file without line ends (/dev/zero) or without end (a pipe of `yes`) is refused, not read
// until memory runs out.
static constexpr std::size_t kMaxLineBytes = 4096;
static constexpr std::size_t kMaxProblems = 1'000'000;

// The next line of `in` into `line` (without its '\n'); false at the end.
static bool read_line(std::istream& in, std::string& line, const std::string& where) {
  line.clear();
  for (int c; (c = in.get()) != std::char_traits<char>::eof();) {
    if (c == '\n') return true;
    if (line.size() == kMaxLineBytes)
      throw Error(Status::kInvalidArgument,
                  where + "a line longer than " + std::to_string(kMaxLineBytes) +
                      " bytes: not a problem file of " + kRowFormat + " rows");
    line += char(c);
  }
  return !line.empty();
}

static int parse_positive(const std::string& text, const char* column, const std::string& where) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1)
    throw Error(Status::kInvalidArgument,
                where + column + " '" + shown(text) +
                    "' is not a positive integer (columns: " + kRowFormat + ")");
  return v;
}

std::vector<ProblemSpec> problems_from_csv(const std::string& path,
                                           const std::string& default_layout) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(
        Status::kInvalidArgument,
        "problem file '" + path + "' is a directory: give a CSV file of " + kRowFormat + " rows");
  std::ifstream in(path);
  if (!in)
    throw Error(Status::kInvalidArgument,
                "cannot read problem file '" + path + "': check the path");
  return problems_from_csv(in, path, default_layout);
}

std::vector<ProblemSpec> problems_from_csv(std::istream& in, const std::string& path,
                                           const std::string& default_layout) {
  std::vector<ProblemSpec> out;
  std::string line;
  bool first_row = true;
  for (int number = 1; read_line(in, line, path + ":" + std::to_string(number) + ": "); ++number) {
    std::string where = path + ":" + std::to_string(number) + ": ";
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
      line.erase(0, 3);  // a UTF-8 byte order mark
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string col; std::getline(ss, col, ',');) cols.push_back(trim(col));
    if (!line.empty() && line.back() == ',') cols.push_back("");
    // Only the first row may be the header; a problem row starts with a number.
    const bool named = !cols[0].empty() && std::isalpha(static_cast<unsigned char>(cols[0][0]));
    if (std::exchange(first_row, false) && named) {
      if (is_header(cols)) continue;
      throw Error(Status::kInvalidArgument,
                  where + "'" + shown(line) + "' is not the header " + kRowFormat +
                      " nor a problem row (M, N, K are numbers), e.g. 4096,4096,4096,nn");
    }
    if (cols.size() < 3 || cols.size() > 5)
      throw Error(Status::kInvalidArgument, where + "expected " + kRowFormat + ", got " +
                                                std::to_string(cols.size()) + " columns: '" +
                                                shown(line) + "'");
    int m = parse_positive(cols[0], "m", where), n = parse_positive(cols[1], "n", where),
        k = parse_positive(cols[2], "k", where);
    std::string layout = cols.size() > 3 && !cols[3].empty() ? cols[3] : default_layout;
    int batch = cols.size() > 4 && !cols[4].empty() ? parse_positive(cols[4], "batch", where) : 1;
    check_batch(batch, where);
    std::vector<std::pair<Op, Op>> layouts;
    try {
      layouts = parse_layouts(layout);
    } catch (const Error& e) {
      throw Error(Status::kInvalidArgument, where + shown(e.what(), 300));
    }
    for (auto [oa, ob] : layouts) out.push_back({oa, ob, m, n, k, batch});
    if (out.size() > kMaxProblems)
      throw Error(Status::kInvalidArgument, where + "more than " + std::to_string(kMaxProblems) +
                                                " problems: split the file");
  }
  if (in.bad())
    throw Error(Status::kInvalidArgument, "cannot read problem file '" + path + "': a read failed");
  if (out.empty())
    throw Error(Status::kInvalidArgument,
                "problem file '" + path + "' holds no problems: write one per line as " +
                    kRowFormat +
                    ", e.g. 4096,4096,4096 or 16,4096,4096,tn,8 ('#' starts "
                    "a comment; an optional first line m,n,k,layout,batch is the header)");
  return out;
}

namespace {
// Shapes as M x N x K (and batch) of each preset.
struct PresetShape {
  int m, n, k, batch = 1;
  const char* layout = nullptr;  ///< its own layout; null: the caller's
};

const std::map<std::string, std::vector<PresetShape>>& presets() {
  static const std::map<std::string, std::vector<PresetShape>> table = {
      // The README's quick start: a few minutes on an H100 with the reduced space.
      {"quick", {{1024, 1024, 1024}, {1024, 1024, 2048}, {127, 257, 1023}, {4096, 4096, 4096}}},
      {"squares",
       {{256, 256, 256},
        {512, 512, 512},
        {1024, 1024, 1024},
        {2048, 2048, 2048},
        {3000, 3000, 3000},
        {4096, 4096, 4096},
        {8192, 8192, 8192}}},
      // LLM layers, tokens (batch x sequence) as M: QKV/out projections (4096 -> 4096), MLP up
      // (4096 -> 11008) and down (11008 -> 4096), at prefill (2048 tokens), small batch decode
      // (16, 128 tokens), and one attention score product per head (batched).
      {"transformer",
       {{2048, 4096, 4096},
        {2048, 12288, 4096},
        {2048, 11008, 4096},
        {2048, 4096, 11008},
        {16, 4096, 4096},
        {16, 11008, 4096},
        {16, 4096, 11008},
        {128, 4096, 4096},
        {128, 11008, 4096},
        {128, 4096, 11008},
        {2048, 2048, 128, 32}}},
      // The benchmark suite (README, docs/PERFORMANCE.md): squares, skinny, deep-K and wide-N
      // shapes.
      {"suite",
       {{1024, 1024, 2048},
        {512, 512, 512},
        {1024, 1024, 1024},
        {2048, 2048, 2048},
        {4096, 4096, 4096},
        {8192, 8192, 8192},
        {3000, 3000, 3000},
        {127, 257, 1023},
        {1, 4096, 4096},
        {16, 4096, 4096},
        {128, 11008, 4096},
        {4096, 4096, 128},
        {64, 64, 65536},
        {8192, 64, 8192},
        {100, 100, 100}}},
      // Shapes users bring, each odd one beside its aligned twin: odd vocabulary sizes (language-
      // model heads, B transposed as nn.Linear stores it), prime and odd M/N/K, all four layouts,
      // every matrix-vector form, dot products from 1e3 to 1e7, deep K, batched attention-like
      // products, tall-skinny and short-wide, tiny.
      {"users",
       {{1024, 32000, 4096, 1, "nn"}, {1024, 32001, 4096, 1, "nn"}, {1024, 50256, 768, 1, "nt"},
        {1024, 50257, 768, 1, "nt"},  {3000, 3000, 2000, 1, "nn"},  {2999, 3001, 2003, 1, "nn"},
        {4096, 4096, 1024, 1, "tn"},  {4095, 4097, 1023, 1, "tn"},  {32, 4096, 4096, 1, "nn"},
        {33, 4097, 4095, 1, "nn"},    {2048, 2048, 2048, 1, "nt"},  {2048, 2048, 2048, 1, "tn"},
        {2048, 2048, 2048, 1, "tt"},  {1, 4096, 4096, 1, "nn"},     {1, 4096, 4096, 1, "nt"},
        {1, 4096, 4096, 1, "tn"},     {1, 4096, 4096, 1, "tt"},     {4096, 1, 4096, 1, "nn"},
        {4096, 1, 4096, 1, "nt"},     {4096, 1, 4096, 1, "tn"},     {4096, 1, 4096, 1, "tt"},
        {1, 4095, 4095, 1, "nt"},     {4095, 1, 4095, 1, "nn"},     {1, 1, 1000, 1, "nn"},
        {1, 1, 100000, 1, "nn"},      {1, 1, 10000000, 1, "nn"},    {64, 64, 262144, 1, "nn"},
        {16, 16, 500000, 1, "nn"},    {512, 512, 64, 64, "nt"},     {512, 64, 512, 64, "nn"},
        {65536, 64, 64, 1, "nn"},     {64, 65536, 64, 1, "nn"},     {8192, 17, 8191, 1, "nn"},
        {7, 9, 13, 1, "tn"}}},
      // A fourth check of the held-out kind, 40 shapes first run on 2026-11-28 (H200,
      // a 3 s sweep each: docs/PERFORMANCE.md): odd medium and large tiles in every layout,
      // language-model heads (vocabularies 151936 and 49408), odd matrix-vector forms, dots of
      // 31337 to 2e6, deep K of 2e5 to 1M, batched (7 to 50000 matrices, a batched matrix-vector
      // product), tall-skinny and short-wide, tiny, K of 1 and 16.
      {"broad",
       {{1777, 2333, 1111, 1, "nn"}, {3333, 777, 2047, 1, "tt"},  {2500, 2500, 2500, 1, "nt"},
        {4999, 4999, 4999, 1, "tn"}, {6144, 4096, 8192, 1, "nn"}, {16, 151936, 4096, 1, "nt"},
        {77, 49408, 512, 1, "nt"},   {1, 151936, 4096, 1, "nt"},  {7001, 1, 513, 1, "tn"},
        {1, 5003, 7919, 1, "nn"},    {2049, 1, 2049, 1, "nt"},    {1, 777, 333, 1, "tt"},
        {3, 3001, 4001, 1, "nt"},    {4001, 6, 3001, 1, "tn"},    {1, 1, 31337, 1, "tt"},
        {1, 1, 777777, 1, "nn"},     {1, 1, 2000000, 1, "nt"},    {96, 80, 200000, 1, "nt"},
        {8, 8, 1048576, 1, "nn"},    {512, 512, 32768, 1, "tn"},  {128, 128, 96, 48, "nn"},
        {333, 333, 333, 7, "nt"},    {31, 31, 31, 256, "tt"},     {1, 64, 64, 1024, "nn"},
        {1024, 1024, 64, 16, "nt"},  {100000, 32, 256, 1, "nn"},  {250000, 4, 4, 1, "tn"},
        {24, 65536, 1024, 1, "nt"},  {3, 100003, 64, 1, "nn"},    {1, 1, 1, 1, "nn"},
        {5, 5, 5, 1, "tt"},          {2, 100, 3, 1, "nt"},        {8191, 8191, 16, 1, "nn"},
        {2000, 3000, 1, 1, "tn"},    {1536, 1536, 1536, 1, "tt"}, {2047, 1023, 4095, 1, "tn"},
        {640, 640, 640, 1, "nn"},    {12, 12, 12, 50000, "nt"},   {4096, 1024, 1023, 1, "nn"},
        {1023, 4096, 1024, 1, "nt"}}},
      // Shapes kept out of every design and tuning decision, to check that what the other presets
      // showed carries over: outer products and K of 3, convolutions as GEMMs (im2col), vision
      // transformers' attention, decode-time language-model layers, point transforms, many tiny
      // matrices, odd squares in the transposed layouts, deep odd K.
      {"holdout",
       {{4096, 4096, 1, 1, "nn"},  {1000, 1000, 1, 1, "nt"},  {1024, 1024, 3, 1, "nt"},
        {12544, 64, 147, 1, "nn"}, {3136, 64, 576, 1, "nn"},  {784, 128, 1152, 1, "tn"},
        {197, 197, 64, 12, "nt"},  {197, 64, 197, 12, "nn"},  {77, 77, 64, 96, "nt"},
        {1, 50257, 768, 1, "nt"},  {1, 11008, 4096, 1, "nt"}, {8, 4096, 11008, 1, "nt"},
        {1000000, 3, 3, 1, "nn"},  {100000, 16, 16, 1, "tn"}, {16, 100000, 16, 1, "nt"},
        {8, 8, 8, 20000, "nn"},    {32, 32, 32, 4096, "tt"},  {1023, 1025, 1027, 1, "tt"},
        {768, 768, 768, 1, "tn"},  {7, 13, 1000003, 1, "nn"}, {2730, 1024, 4096, 1, "nn"}}},
      // A second check of the same kind, one or more shapes per class: odd medium squares, odd
      // deep K, odd matrix-vector forms, tiny, batched small matrices, attention, tall and wide,
      // deep K. Its first run found that narrowed loads cost registers (docs/PERFORMANCE.md,
      // entry of 2026-11-23), so it is no longer unseen; `holdout` still is.
      {"classes",
       {{1531, 1531, 1531, 1, "nn"}, {2047, 2049, 2051, 1, "nt"}, {3000, 3000, 3000, 1, "tn"},
        {6144, 6144, 1024, 1, "tt"}, {511, 513, 4093, 1, "nn"},   {1, 1, 3, 1, "nn"},
        {1, 1, 1000000, 1, "tn"},    {1, 4093, 4099, 1, "nn"},    {4099, 1, 4093, 1, "tt"},
        {3, 3, 3, 1, "nn"},          {64, 64, 64, 1000, "nn"},    {128, 128, 128, 256, "tn"},
        {100, 100, 100, 500, "nt"},  {16, 16, 16, 10000, "tt"},   {512, 512, 64, 96, "nt"},
        {512, 64, 512, 96, "nn"},    {8192, 8192, 2048, 1, "nn"}, {50000, 64, 64, 1, "nn"},
        {64, 50000, 64, 1, "nt"},    {256, 256, 100000, 1, "nn"}, {10, 10, 500000, 1, "tn"},
        {2, 2048, 2048, 1, "nn"},    {3, 50000, 512, 1, "nt"},    {7, 7, 7, 1, "nn"},
        {4096, 3, 4096, 1, "nn"},    {1000, 1000, 10, 1, "nn"},   {12345, 678, 91, 1, "tn"}}},
      // A third check of the held-out kind, 41 shapes first run on 2026-11-28 (H200, a
      // 3 s sweep each: docs/PERFORMANCE.md): odd and aligned medium to huge tiles, language-model
      // heads (odd and 2-float aligned vocabularies), every matrix-vector form large and small,
      // few rows or columns, dots of 100 to 3e6, deep K with small and medium outputs, batched
      // (odd counts, matrix-vector), tall and short, K of 2 and 8, tiny.
      {"wide",
       {{999, 999, 999, 1, "nn"},    {1000, 1000, 1000, 1, "tt"}, {4097, 4097, 4097, 1, "nt"},
        {5000, 3000, 2500, 1, "tn"}, {6001, 1000, 3001, 1, "nn"}, {8192, 8191, 512, 1, "nt"},
        {2048, 30522, 768, 1, "nt"}, {512, 50257, 1024, 1, "nt"}, {1, 128256, 2048, 1, "nt"},
        {1, 12289, 4097, 1, "nt"},   {12289, 1, 4097, 1, "nn"},   {1, 8192, 8192, 1, "nn"},
        {1, 3001, 2999, 1, "tn"},    {8191, 1, 1023, 1, "tt"},    {1, 1000, 1000, 1, "nt"},
        {1000, 1, 100, 1, "nn"},     {2, 8191, 8193, 1, "nn"},    {4, 4096, 4096, 1, "nt"},
        {5, 11007, 4095, 1, "tn"},   {4096, 7, 4096, 1, "nn"},    {8192, 2, 8192, 1, "tt"},
        {1, 1, 12345, 1, "nt"},      {1, 1, 3000001, 1, "tn"},    {1, 1, 100, 1, "nn"},
        {128, 128, 131071, 1, "nn"}, {32, 48, 999999, 1, "tn"},   {300, 300, 50000, 1, "nt"},
        {128, 128, 64, 333, "nt"},   {33, 65, 127, 100, "nn"},    {1, 1024, 1024, 32, "nn"},
        {96, 96, 96, 1000, "tn"},    {256, 1, 256, 128, "nn"},    {200003, 8, 64, 1, "nn"},
        {1024, 1024, 8, 1, "nn"},    {4096, 4096, 2, 1, "tn"},    {3, 3, 3000, 1, "nn"},
        {2, 3, 5, 1, "tt"},          {31, 29, 37, 1, "nt"},       {17, 17, 17, 1, "nn"},
        {8192, 8192, 4096, 1, "tn"}, {16384, 4096, 4096, 1, "nt"}}},
  };
  return table;
}
}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, shapes] : presets()) names.push_back(name);
  return names;
}

std::string preset_list() {
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  return known;
}

std::vector<ProblemSpec> preset_problems(const std::string& name, const std::string& layout) {
  auto it = presets().find(name);
  if (it == presets().end())
    throw Error(Status::kInvalidArgument,
                "unknown preset '" + name + "': use one of " + preset_list());
  auto layouts = parse_layouts(layout);
  std::vector<ProblemSpec> out;
  for (const auto& s : it->second)
    for (auto [oa, ob] : s.layout ? parse_layouts(s.layout) : layouts)
      out.push_back({oa, ob, s.m, s.n, s.k, s.batch});
  return out;
}

ProblemSpec kernel_spec(const ProblemSpec& spec) {
  const Problem p = kernel_form(spec.problem());
  return {p.op_a, p.op_b, p.m, p.n, p.k, p.batch};
}

std::vector<int> m_buckets(int lo, int hi) {
  if (lo < 1 || hi < lo)
    throw Error(Status::kInvalidArgument, "M range " + std::to_string(lo) + ":" +
                                              std::to_string(hi) +
                                              ": needs 1 <= LO <= HI, e.g. 1:4096");
  std::vector<int> ms = {lo};
  for (long long power = 1; power <= hi; power *= 2)
    for (long long m : {power, power + power / 2})
      if (m > lo && m < hi) ms.push_back(int(m));
  if (hi > lo) ms.push_back(hi);
  std::sort(ms.begin(), ms.end());
  ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
  return ms;
}

std::vector<int> m_buckets(const std::string& range) {
  const auto colon = range.find(':');
  int lo = 0, hi = 0;
  auto whole_int = [](std::string_view text, int& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
  };
  const std::string_view text(range);
  if (colon == std::string::npos || !whole_int(text.substr(0, colon), lo) ||
      !whole_int(text.substr(colon + 1), hi) || lo < 1 || hi < lo)
    throw Error(Status::kInvalidArgument,
                "M range '" + range +
                    "': expected LO:HI, two whole numbers with 1 <= LO <= HI "
                    "(e.g. 1:4096)");
  return m_buckets(lo, hi);
}

std::vector<ProblemSpec> with_each_m(const std::vector<ProblemSpec>& problems,
                                     const std::vector<int>& ms) {
  std::vector<ProblemSpec> out;
  for (const ProblemSpec& p : problems)
    for (int m : ms) {
      ProblemSpec q = p;
      q.m = m;
      out.push_back(q);
    }
  return out;
}

std::vector<ProblemSpec> unique_problems(const std::vector<ProblemSpec>& problems) {
  std::vector<ProblemSpec> out;
  for (const auto& p : problems)
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

}  // namespace gemmtune::tuner
