#include "gemmtune/db/records.hpp"

#include <array>
#include <utility>

namespace gemmtune::db {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 7> kStatusNames{{
    {Status::ok, "ok"},
    {Status::invalid, "invalid"},
    {Status::compile_failed, "compile_failed"},
    {Status::launch_failed, "launch_failed"},
    {Status::wrong_result, "wrong_result"},
    {Status::timeout, "timeout"},
    {Status::pruned, "pruned"},
}};

}  // namespace

std::string_view status_name(Status s) {
  for (const auto& [status, name] : kStatusNames)
    if (status == s) return name;
  return "unknown";
}

std::optional<Status> parse_status(std::string_view s) {
  for (const auto& [status, name] : kStatusNames)
    if (name == s) return status;
  return std::nullopt;
}

std::string content_hash(const std::vector<std::byte>& bytes) {
  return content_hash(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string content_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (char b : bytes) {
    h ^= static_cast<unsigned char>(b);
    h *= 0x100000001b3ull;  // FNV prime
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[i] = kHex[h & 15];
  return out;
}

}  // namespace gemmtune::db
