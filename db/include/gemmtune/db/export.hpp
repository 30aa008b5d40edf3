#pragma once
// Export of results and bests as CSV (RFC 4180, LF line ends) or JSON (an array of objects, one per
// line). NULL is an empty CSV field and JSON null.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "gemmtune/db/database.hpp"

namespace gemmtune::db {

/// Output format of an export.
enum class ExportFormat { csv, json };

/// Writes every result with its sweep, GPU model, problem and config parameters, oldest first;
/// optionally only those of one GPU model.
void export_results(const Database& db, ExportFormat format, std::ostream& out,
                    std::optional<Id> gpu_model_id = std::nullopt);

/// Writes the best_results view with every config parameter; optionally of one GPU model.
void export_bests(const Database& db, ExportFormat format, std::ostream& out,
                  std::optional<Id> gpu_model_id = std::nullopt);

/// `s` as one CSV field: quoted, with quotes doubled, when it holds a comma, quote, CR or LF or
/// starts or ends with a space. Other bytes, UTF-8 or not, pass through unchanged.
std::string csv_field(std::string_view s);

/// `s` as a JSON string literal. Quotes, backslashes and control characters are escaped; a byte
/// that is not part of valid UTF-8 becomes \u00XX of that byte (so 0xFF reads back as U+00FF:
/// the output stays valid JSON, at the cost of not telling such a byte from that character).
std::string json_string(std::string_view s);

}  // namespace gemmtune::db
