#pragma once
// simulate --drive: the measured telemetry that drives a run (session/drive.hpp), from the command line.
#include "args.hpp"

#include <clustertwin/session/run_session.hpp>

#include <iosfwd>
#include <vector>

namespace ct::cli {

/// Option `opt` as a measured instant: Unix seconds or ISO 8601 (throws UsageError naming the option).
double instantArg(const Args& a, const char* opt);

/// Plans the drive of `r` (its scenario and catalog loaded) from --drive, --drive-run, --drive-map, --drive-from
/// and --drive-max-gap: the series into r.engine.drive, the time origin into its metadata, the duration from the
/// measurements unless --duration gave one. Says what drives what on `note` and what does not on stderr.
/// False (with the reason on stderr) when the drive cannot be planned.
bool planDriveFor(const Args& a, session::RunRequest& r, std::ostream& note);

/// After the run: how each input ran (measured share of its steps, gaps) on `note`.
void printDriven(const std::vector<runs::RunMeta::Driven>& driven, std::ostream& note);

}  // namespace ct::cli
