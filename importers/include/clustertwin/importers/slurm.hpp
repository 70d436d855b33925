#pragma once
// Slurm accounting (sacct --parsable / --parsable2, any delimiter): jobs for the scheduler replay (issue 3's
// job model takes their node lists and times).
#include <clustertwin/importers/parse.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ct::importers {

struct SlurmResult {
    std::vector<SlurmJob> jobs;
    std::vector<ImportWarning> warnings;
};

/// "dgx[001-004,010]" → dgx001..dgx004, dgx010; "a,b[1-2]" → a, b1, b2; "None assigned" → none.
/// Throws ImportError on a malformed list.
std::vector<std::string> expandHostlist(const std::string& list);

/// Parses sacct output. With a header line the fields are taken from it; without one, `fields` (the --format
/// list, comma-separated) must be given. The delimiter ('|', '☃' or any --delimiter) is detected from the
/// first line; a trailing delimiter (--parsable) is accepted. Job steps (1234.batch, 1234.0) are folded into
/// their job. Bad rows are warned about with file:line and skipped.
SlurmResult parseSacct(std::istream& in, const ParseOptions& opt, const std::string& fields = {});

/// Parses `sacct --json` (also squeue --json's jobs): openapi v0.0.37 … v0.0.41 shapes, numbers plain or
/// {"set","infinite","number"}, state a string or a list, TRES under tres.allocated. Problems are warned by
/// JSON pointer ("file#/jobs/3/nodes").
SlurmResult parseSlurmJson(std::istream& in, const ParseOptions& opt);

/// Detects sacct text or JSON by content and parses the file. `fields`: the --format list for headerless text.
/// Throws ImportError when the file cannot be read or is neither.
/// `tz_offset_s`: the offset from UTC of the zone-less times sacct prints (0: read as UTC).
SlurmResult parseSlurmFile(const std::string& path, const std::string& fields = {}, double tz_offset_s = 0);

}  // namespace ct::importers
