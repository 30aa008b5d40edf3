// Resource figures read from a cubin's ELF image. NVRTC's compile cache can skip ptxas, and then
// the "-v" report is missing from the log; the cubin always carries the figures: the global
// .nv.info section holds (symbol index, value) records per kernel.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "gemmtune/compiler.hpp"

namespace gemmtune {

namespace {
constexpr std::uint8_t kAttrFrameSize = 0x12;  // EIATTR_FRAME_SIZE: stack frame bytes
constexpr std::uint8_t kAttrRegCount = 0x2f;   // EIATTR_REGCOUNT: registers per thread
constexpr std::uint8_t kFormatSizedValue = 0x04;

// The image may come from a database anyone could have written (the binary cache): every offset
// and size in it is checked against the image, without overflow, and no loop runs past its end.
template <typename T>
bool read(const std::vector<char>& elf, std::uint64_t offset, T& out) {
  if (offset > elf.size() || elf.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, elf.data() + offset, sizeof(T));
  return true;
}

struct Section {
  std::uint32_t name = 0, type = 0;
  std::uint64_t offset = 0, size = 0;
  std::uint32_t link = 0;
};

std::string_view c_string(const std::vector<char>& elf, std::uint64_t at) {
  if (at >= elf.size()) return {};
  const char* s = elf.data() + at;
  return {s, strnlen(s, elf.size() - at)};
}
}  // namespace

KernelResources cubin_resources(const std::vector<char>& elf, std::string_view kernel_name) {
  KernelResources r;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (elf.size() < 64 ||
      std::memcmp(elf.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      elf[4] != 2)
    return r;
  if (!read(elf, 0x28, shoff) || !read(elf, 0x3a, shentsize) || !read(elf, 0x3c, shnum) ||
      !read(elf, 0x3e, shstrndx))
    return r;
  std::vector<Section> sections(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::size_t at = shoff + std::size_t(i) * shentsize;
    Section& s = sections[i];
    if (!read(elf, at, s.name) || !read(elf, at + 4, s.type) || !read(elf, at + 0x18, s.offset) ||
        !read(elf, at + 0x20, s.size) || !read(elf, at + 0x28, s.link))
      return r;
  }
  if (shstrndx >= shnum) return r;
  auto section_name = [&](const Section& s) {
    return c_string(elf, sections[shstrndx].offset + s.name);
  };

  // The kernel's index in the symbol table.
  std::int64_t symbol = -1;
  const Section* info = nullptr;
  for (const Section& s : sections) {
    if (section_name(s) == ".nv.info") info = &s;
    if (s.type != 2 /* SHT_SYMTAB */ || s.link >= shnum) continue;
    for (std::uint64_t at = 0; at + 24 <= s.size && at + 24 <= elf.size(); at += 24) {
      std::uint32_t name = 0;
      read(elf, s.offset + at, name);
      if (c_string(elf, sections[s.link].offset + name) == kernel_name)
        symbol = std::int64_t(at / 24);
    }
  }
  if (symbol < 0 || !info) return r;
  const std::uint64_t info_end = std::min<std::uint64_t>(
      elf.size(), info->offset + std::min<std::uint64_t>(info->size, elf.size()));
  for (std::uint64_t at = info->offset; at < info_end && info_end - at >= 4;) {
    std::uint8_t format = std::uint8_t(elf[at]), attr = std::uint8_t(elf[at + 1]);
    std::uint16_t size = 0;
    read(elf, at + 2, size);
    if (format != kFormatSizedValue) {
      at += 4;
      continue;
    }
    std::uint32_t sym = 0, value = 0;
    if (size == 8 && read(elf, at + 4, sym) && read(elf, at + 8, value) && sym == symbol) {
      if (attr == kAttrRegCount) r.registers = int(value);
      if (attr == kAttrFrameSize) r.stack_bytes = int(value);
    }
    at += 4 + size;
  }
  return r;
}

}  // namespace gemmtune
