#pragma once
// The smallest ELF image that reads as a cubin holding one kernel (cubin_resources finds it, with
// its register count): for tests of the binary cache that need no GPU and no compile.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gemmtune::test {

/// An ELF64 image with a symbol table naming `entry` and an .nv.info section giving it
/// `registers` registers and a stack frame of `stack_bytes`.
inline std::vector<char> fake_cubin(const std::string& entry, std::uint32_t registers = 32,
                                    std::uint32_t stack_bytes = 0) {
  const std::string shstrtab = std::string("\0.shstrtab\0.strtab\0.symtab\0.nv.info\0", 36);
  const std::string strtab = std::string(1, '\0') + entry + '\0';
  std::vector<char> symtab(48, 0);  // the null symbol, then `entry` (its name at offset 1)
  symtab[24] = 1;
  std::vector<char> info;
  for (std::uint8_t attr : {std::uint8_t(0x2f), std::uint8_t(0x12)}) {  // REGCOUNT, FRAME_SIZE
    // format 0x04 (a sized value), the attribute, 8 bytes: symbol 1, then the value
    const std::uint32_t record[3] = {0x00080004u | (std::uint32_t(attr) << 8), 1,
                                     attr == 0x2f ? registers : stack_bytes};
    const char* p = reinterpret_cast<const char*>(record);
    info.insert(info.end(), p, p + sizeof record);
  }
  std::vector<char> elf(64, 0);
  std::memcpy(elf.data(),
              "\x7f"
              "ELF\x02\x01\x01",
              7);
  auto put = [&](std::size_t at, auto value) {
    std::memcpy(elf.data() + at, &value, sizeof value);
  };
  struct Part {
    const char* data;
    std::size_t size;
    std::uint32_t name, type, link;
  };
  const Part parts[] = {{shstrtab.data(), shstrtab.size(), 1, 3, 0},
                        {strtab.data(), strtab.size(), 11, 3, 0},
                        {symtab.data(), symtab.size(), 19, 2, 2},
                        {info.data(), info.size(), 27, 0x70000000, 0}};
  std::vector<std::uint64_t> offsets;
  for (const Part& p : parts) {
    offsets.push_back(elf.size());
    elf.insert(elf.end(), p.data, p.data + p.size);
  }
  while (elf.size() % 8) elf.push_back(0);
  put(0x28, std::uint64_t(elf.size()));  // section headers: the null one, then the parts
  put(0x3a, std::uint16_t(64));
  put(0x3c, std::uint16_t(1 + std::size(parts)));
  put(0x3e, std::uint16_t(1));
  elf.resize(elf.size() + 64, 0);
  for (std::size_t i = 0; i < std::size(parts); ++i) {
    const std::size_t at = elf.size();
    elf.resize(at + 64, 0);
    put(at, parts[i].name);
    put(at + 4, parts[i].type);
    put(at + 0x18, offsets[i]);
    put(at + 0x20, std::uint64_t(parts[i].size));
    put(at + 0x28, parts[i].link);
  }
  return elf;
}

}  // namespace gemmtune::test
