#pragma once
// One vocabulary of GPU metric names and units for every format that reports nvidia-smi's quantities
// (query-gpu CSV, -q -x XML, DCGM exporter, nvidia_gpu_exporter, dmon). Keyed by nvidia-smi's query-field
// names, the one list NVIDIA documents (nvidia-smi --help-query-gpu). docs/importers.md has the table. Private.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::importers::detail {

struct Term {
    std::string_view metric;  ///< "power_w"
    std::string_view unit;    ///< "W", "degC", "ratio", "MHz", "MiB", "s", "" (a count or a state)
    double scale = 1;         ///< value in the source's unit × scale = value in `unit`
};

/// A query field ("power.draw", without " [W]") whose value comes in `source_unit` ("W", "%", "MiB", "MHz",
/// "C", or the exporters' base units "ratio", "bytes", "Hz", "us", "s"; "" = nvidia-smi's own unit for that
/// field, as `--format=csv,nounits` writes it). nullopt when the field is not in the vocabulary.
std::optional<Term> smiTerm(std::string_view field, std::string_view source_unit = {});

/// A field outside the vocabulary keeps its name ('.' → '_'); a percentage becomes a ratio.
struct OwnTerm {
    std::string metric, unit;
    double scale = 1;
};
OwnTerm smiOwnTerm(std::string_view field, std::string_view source_unit);

/// nvidia_gpu_exporter's metric name ("nvidia_smi_power_draw_watts") → its query field and the unit its value
/// is in ("power.draw", "W"). nullopt for names it does not derive from a field (gpu_info, exporter health).
struct ExporterField {
    std::string field, unit;
};
std::optional<ExporterField> exporterField(std::string_view name);

/// Fields that say what the GPU is, not how it runs (index, count, serial, versions, PCI and platform
/// addresses): identity, not telemetry; not stored as samples. Takes the field with '.' or '_' separators.
bool smiIdentityField(std::string_view field);

/// "P0".."P15" → 0..15 (nvidia-smi's performance state); false otherwise.
bool parsePstate(std::string_view v, double& out);

/// Every vocabulary row (field, metric, unit) for the documentation and its test.
struct VocabularyRow {
    std::string_view field, metric, unit, smi_unit;
};
const std::vector<VocabularyRow>& vocabulary();

}  // namespace ct::importers::detail
