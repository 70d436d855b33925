#pragma once
// Helpers the Slurm readers share (sacct, squeue, scontrol show job/node, sinfo, their --json). Private.
#include <clustertwin/importers/slurm.hpp>

#include <nlohmann/json_fwd.hpp>

#include <istream>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ct::importers::detail {

/// `s` cut at every `delim`.
std::vector<std::string> splitOn(const std::string& s, const std::string& delim);
/// A Slurm time ("2023-08-31T12:29:47", local `tz_offset_s` east of UTC); nullopt for Unknown/None/(null)/N/A.
std::optional<double> slurmTime(const std::string& s, double tz_offset_s);
/// A number, plain or wrapped ({"set": true, "infinite": false, "number": 1739832148}); nullopt when unset or
/// infinite.
std::optional<double> slurmNumber(const nlohmann::json& v);
/// slurmNumber that is a whole number from 0 to `max` (ids, counts); nullopt for 1.5, -1, 4e61.
std::optional<long long> slurmWhole(const nlohmann::json& v, double max = 9.0e18);
/// A time in Unix seconds: slurmNumber, and nullopt for 0 (Slurm's "not set").
std::optional<double> slurmEpoch(const nlohmann::json& v);
/// The GPUs in a Gres or TRES string: "gpu:a100:4(S:0-1)", "gpu:4", "gres/gpu=4,gres/gpu:a100=4". `count`
/// and `model` are left alone when it names none.
void gresGpus(const std::string& text, int& count, std::string& model);
/// No node carries more GPUs than this (an HGX board has 8, the largest PCIe servers 20).
inline constexpr int kMaxGpusPerNode = 128;
/// Whether `count` GPUs on one node is believable; if not, a bad_value warning at `where` says so (the node's
/// GPUs are then not created: a typo or a corrupt file must not make millions of entities).
bool plausibleGpuCount(const std::string& host, int count, const std::string& where, std::vector<ImportWarning>& warnings);
/// A Slurm --json document read whole: its "errors" become source_error warnings (by JSON pointer); false
/// (with a syntax warning naming the line) when it is not a JSON object.
bool readSlurmDocument(std::istream& in, const ParseOptions& opt, nlohmann::json& doc, std::vector<ImportWarning>& warnings);
/// Slurm accounting's jobs and warnings as a format row returns them (formats.hpp).
inline ParseResult asParseResult(SlurmResult r) {
    ParseResult out;
    out.jobs = std::move(r.jobs);
    out.warnings = std::move(r.warnings);
    return out;
}
/// States of a job that has not finished: its end time, when printed, is its limit and not a stop.
bool liveJobState(const std::string& state);

}  // namespace ct::importers::detail
