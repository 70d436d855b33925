#pragma once
// Files other tools open (issue 19): the hall and its air field as VTK XML for ParaView (.vtp, .vti, a .pvd
// time series), the hall as glTF 2.0 (Scene::exportGltf). VTK types stay in the .cpp (contributing.md habit 2).
// Every file is written atomically (a temporary file, then a rename); failures throw RenderError.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::render {

/// The racks and cooling units of every hall as boxes in site coordinates (metres; a hall's corner at its
/// site_position_m), VTK XML PolyData. Cell data per box: `id` and `kind` (strings; "rack" or "cooling_unit"),
/// `hall` and, with a frame, the values it has for the entity (NaN where none): inlet_mean_c, inlet_max_c,
/// exhaust_c, power_kw, heat_to_air_kw, airflow_m3s, capture_index for racks; return_c, supply_c, load_kw and
/// failed (0/1) for units (the rack arrays are NaN on unit boxes and the other way round).
void writeHallVtp(const model::Scenario& s, const model::Catalog& c, const model::Frame* frame, const std::string& path);

/// The air field of the first hall as VTK XML ImageData: one VTK cell per grid cell, origin at the hall's
/// site position, spacing cell_m. Cell data: temperature_c (NaN in solid cells), solid (0/1) and velocity_ms
/// (3 components) when the field has it. Throws RenderError when the field's arrays do not match its size.
void writeAirFieldVti(const model::AirField& f, const model::Vec2& origin_m, const std::string& path);

/// One dataset of a ParaView collection: its time, the part it is (datasets of the same part form one series)
/// and its file, relative to the .pvd.
struct PvdEntry {
    double time_s = 0;
    int part = 0;
    std::string file;
};
/// A ParaView collection file (.pvd) that ties datasets to times.
void writePvd(const std::vector<PvdEntry>& entries, const std::string& path);

}  // namespace ct::render
