#pragma once
// clustertwin-cli export: files other tools open (issue 19): VTK XML for ParaView, glTF 2.0, an HTML report.
#include "args.hpp"

namespace ct::cli {

extern const char* kExportHelp;
/// Returns the exit code; throws UsageError / model::ModelError for bad input, render::RenderError when a file
/// cannot be written.
int cmdExport(const Args& a);

}  // namespace ct::cli

namespace ct::model {
struct ValidationReport;
}

namespace ct::cli {
/// --format video (export_video.cpp).
int exportVideo(const model::ValidationReport& rep, const Args& a, const std::string& out);

}  // namespace ct::cli
