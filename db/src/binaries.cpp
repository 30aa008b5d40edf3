// The compiled-kernel cache. Every read re-hashes the bytes (SHA-256): a damaged cubin must never
// be loaded. What the bytes are for (the config, its entry point) the runtime checks
// (from_binary, runtime/src/db_rows.cpp): this layer knows nothing of kernels.
#include "gemmtune/db/database.hpp"

namespace gemmtune::db {

void Database::put_binary(const Binary& b) {
  require_writable("store a binary");
  Transaction tx(conn_);
  Statement ins(conn_,
                "INSERT INTO binaries (key, arch, nvrtc_version, config_name, lowered_name, cubin, "
                "content_hash, registers, spill_bytes, smem_bytes) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
                "ON CONFLICT (key) DO UPDATE SET arch = excluded.arch, "
                "nvrtc_version = excluded.nvrtc_version, config_name = excluded.config_name, "
                "lowered_name = excluded.lowered_name, cubin = excluded.cubin, "
                "content_hash = excluded.content_hash, registers = excluded.registers, "
                "spill_bytes = excluded.spill_bytes, smem_bytes = excluded.smem_bytes, "
                "created_at = excluded.created_at");
  ins.bind_text(1, b.key).bind_text(2, b.arch).bind_text(3, b.nvrtc_version);
  ins.bind_text(4, b.config_name).bind_text(5, b.lowered_name).bind_blob(6, b.cubin);
  ins.bind_text(7, sha256_hex(b.cubin)).bind_int(8, b.registers);
  ins.bind_int(9, b.spill_bytes).bind_int(10, b.smem_bytes).run();
  tx.commit();
}

std::int64_t Database::clear_binaries() {
  require_writable("clear the binary cache");
  Transaction tx(conn_);
  Statement(conn_, "DELETE FROM binaries").run();
  const std::int64_t dropped = conn_.changes();
  tx.commit();
  return dropped;
}

std::vector<std::string> Database::binary_keys() const {
  Statement st(conn_, "SELECT key FROM binaries ORDER BY id");
  std::vector<std::string> keys;
  while (st.step()) keys.push_back(st.get_text(0));
  return keys;
}

BinaryLookup Database::get_binary(const std::string& key) const {
  Statement st(conn_,
               "SELECT arch, nvrtc_version, config_name, lowered_name, cubin, content_hash, "
               "registers, spill_bytes, smem_bytes FROM binaries WHERE key = ?1");
  st.bind_text(1, key);
  BinaryLookup out;
  if (!st.step()) return out;
  Binary b;
  b.key = key;
  b.arch = st.get_text(0);
  b.nvrtc_version = st.get_text(1);
  b.config_name = st.get_text(2);
  b.lowered_name = st.get_text(3);
  b.cubin = st.get_blob(4);
  const std::string stored = st.get_text(5);
  b.registers = st.get_opt_int(6);
  b.spill_bytes = st.get_opt_int(7);
  b.smem_bytes = st.get_opt_int(8);
  // A 16-digit hash is FNV-1a, as gemmtune stored it before 2026-12-02: anyone can forge one, so
  // such an entry is a miss (recompiled, and replaced where the file is writable), not damage.
  if (stored.size() == 16 && stored == content_hash(b.cubin)) return out;
  const std::string actual = sha256_hex(b.cubin);
  if (actual != stored) {
    out.corrupt = "tuning database '" + conn_.path() + "': cached binary '" + key + "' (config " +
                  b.config_name + ") is corrupt: stored hash " + stored + ", bytes hash " + actual +
                  "; treated as a miss: it will be recompiled and replaced";
    return out;
  }
  out.binary = std::move(b);
  return out;
}

}  // namespace gemmtune::db
