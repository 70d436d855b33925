#pragma once
// Helpers the session's drive, score and calibration share. Private to ct_session.
#include <clustertwin/runs/score.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ct::session::detail {

/// A JSON file (throws InputError naming the file: cannot open, not JSON).
nlohmann::json readJsonFile(const std::string& path);

/// The mean of several series at every time any of them has a sample (each interpolated; NaN left out): a
/// server's fans, the cooling units' supply temperature.
runs::Points meanSeries(const std::vector<runs::Points>& all);

}  // namespace ct::session::detail
