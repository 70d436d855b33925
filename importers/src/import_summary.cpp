// What an import did, in words (clustertwin-cli import's summary, the app's import report), and the inputs
// of an import (files, directories walked in name order).
#include <clustertwin/importers/import_session.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace ct::importers {

std::vector<std::pair<std::string, bool>> collectInputs(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, bool>> files;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> in_dir;
            for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file(ec)) in_dir.push_back(it->path().string());
            std::sort(in_dir.begin(), in_dir.end());
            for (auto& f : in_dir) files.emplace_back(std::move(f), true);
        } else if (fs::exists(p, ec)) {
            files.emplace_back(p, false);
        } else {
            throw ImportError(p + ": no such file or directory");
        }
    }
    return files;
}

std::string formatImportSummary(const ImportSummary& s, const std::string& unit) {
    const auto& w = s.written;
    std::ostringstream out;
    if (s.run_removed)
        out << (s.entities.empty() ? "nothing imported (no run was kept): " : "no readings (no run was kept; the inventory is recorded): ");
    else out << "run " << s.run << ": ";
    out << s.files << " " << unit;
    if (s.skipped_files) out << " (" << s.skipped_files << " other file(s) skipped)";
    if (s.unchanged_files) out << ", " << s.unchanged_files << " " << unit << " already imported into this run (same content)";
    out << ", " << s.series << " series, " << w.stored << " samples stored";
    if (w.duplicates || w.conflicts)
        out << " of " << s.samples_read << " read (" << w.duplicates << " already in the run, " << w.conflicts << " collisions)";
    if (s.links) out << ", " << s.links << " links";
    if (!s.jobs.empty()) out << ", " << s.jobs.size() << " jobs";
    if (!s.entities.empty()) out << ", " << s.entities.size() << " entities";
    out << "\n";
    if (!s.failed.empty()) out << "  " << s.failed.size() << " " << unit << " could not be read\n";
    if (!s.collision_note.empty()) out << "  warning: " << s.collision_note << "\n";
    for (const auto& [kind, v] : s.warning_kinds) out << "  " << v.first << " warning(s) " << kind << ", first: " << v.second << "\n";
    // Every file with problems is named (the first 20; --json lists them all).
    if (s.warnings.size() > 1) {
        std::size_t listed = 0;
        for (const auto& f : s.warnings) {
            if (listed++ == 20) {
                out << "  ... and " << s.warnings.size() - 20 << " more file(s) with warnings\n";
                break;
            }
            out << "  " << f.file << ": " << f.count << " warning(s), first: " << f.first.front().location << ": "
                << f.first.front().message << "\n";
        }
    }
    if (!s.unmatched.empty() || s.matched) {
        out << "  mapping: " << s.matched << " entities matched, " << s.unmatched.size() << " did not";
        std::size_t listed = 0;
        for (const auto& u : s.unmatched) {
            if (listed++ == 10) {
                out << " ...";
                break;
            }
            out << (listed == 1 ? ": " : ", ") << u;
        }
        out << "\n";
    }
    if (s.alerts > 0)
        out << "  alerts: " << s.alerts << " raised on the measurements by the alert rules (clustertwin-cli alerts lists them)\n";
    for (const auto& n : s.alert_notes) out << "  alert rule " << n << "\n";
    return out.str();
}

}  // namespace ct::importers
