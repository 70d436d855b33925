// VTK XML exports of the hall and its air field (export.hpp).
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/render/export.hpp>
#include <clustertwin/render/scene.hpp>

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkXMLImageDataWriter.h>
#include <vtkXMLPolyDataWriter.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

namespace ct::render {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Writes through `writer` to a temporary file beside `path`, then renames it into place.
template <class Writer>
void writeAtomically(Writer* writer, const std::string& path, const char* what) {
    const std::string tmp = path + ".tmp";
    writer->SetFileName(tmp.c_str());
    writer->SetDataModeToBinary();
    writer->SetCompressorTypeToZLib();
    std::error_code ec;
    if (writer->Write() != 1 || writer->GetErrorCode() != 0 || !std::filesystem::exists(tmp, ec)) {
        std::filesystem::remove(tmp, ec);
        throw RenderError(std::string("cannot write the ") + what + " to " + path);
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw RenderError(std::string("cannot write the ") + what + " to " + path + ": " + ec.message());
    }
}

/// A box of 8 points and 6 quads.
void addBox(vtkPoints* pts, vtkCellArray* polys, double x0, double y0, double z0, double x1, double y1, double z1) {
    const vtkIdType b = pts->GetNumberOfPoints();
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 2; ++i) pts->InsertNextPoint(i ? x1 : x0, j ? y1 : y0, k ? z1 : z0);
    // Corner (i, j, k) is b + i + 2j + 4k; faces wound outward.
    const vtkIdType faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : faces) {
        const vtkIdType ids[4] = {b + f[0], b + f[1], b + f[2], b + f[3]};
        polys->InsertNextCell(4, ids);
    }
}

vtkSmartPointer<vtkFloatArray> floatArray(const char* name) {
    auto a = vtkSmartPointer<vtkFloatArray>::New();
    a->SetName(name);
    return a;
}

float orNaN(double v) { return std::isfinite(v) ? static_cast<float>(v) : kNaN; }

}  // namespace

void writeHallVtp(const model::Scenario& s, const model::Catalog& c, const model::Frame* frame, const std::string& path) {
    std::map<std::string, const model::RackFrame*> rack_of;
    std::map<std::string, const model::CoolingUnitFrame*> unit_of;
    if (frame) {
        for (const auto& r : frame->racks) rack_of[r.id] = &r;
        for (const auto& u : frame->cooling_units) unit_of[u.id] = &u;
    }
    vtkNew<vtkPoints> pts;
    pts->SetDataTypeToFloat();
    vtkNew<vtkCellArray> polys;
    vtkNew<vtkStringArray> ids, kinds, halls;
    ids->SetName("id");
    kinds->SetName("kind");
    halls->SetName("hall");
    const char* rack_names[] = {"inlet_mean_c", "inlet_max_c", "exhaust_c", "power_kw", "heat_to_air_kw", "airflow_m3s", "capture_index"};
    const char* unit_names[] = {"return_c", "supply_c", "load_kw", "failed"};
    std::vector<vtkSmartPointer<vtkFloatArray>> rack_arrays, unit_arrays;
    for (const char* n : rack_names) rack_arrays.push_back(floatArray(n));
    for (const char* n : unit_names) unit_arrays.push_back(floatArray(n));
    // One value per face: every array gets six equal tuples per box.
    auto addValues = [&](const std::string& id, const char* kind, const std::string& hall, const std::vector<float>& rv,
                         const std::vector<float>& uv) {
        for (int face = 0; face < 6; ++face) {
            ids->InsertNextValue(id);
            kinds->InsertNextValue(kind);
            halls->InsertNextValue(hall);
            for (std::size_t a = 0; a < rack_arrays.size(); ++a) rack_arrays[a]->InsertNextValue(rv.empty() ? kNaN : rv[a]);
            for (std::size_t a = 0; a < unit_arrays.size(); ++a) unit_arrays[a]->InsertNextValue(uv.empty() ? kNaN : uv[a]);
        }
    };
    for (const auto& h : s.halls) {
        const double ox = h.site_position_m.x_m, oy = h.site_position_m.y_m;
        for (const auto& row : h.rows)
            for (const auto& r : row.racks) {
                const model::RackModel* rm = c.rack(r.model);
                if (!rm) continue;
                const model::Box2 b = model::footprint(r.position_m, rm->width_m, rm->depth_m, r.facing);
                addBox(pts, polys, ox + b.x0, oy + b.y0, 0, ox + b.x1, oy + b.y1, rm->height_m);
                std::vector<float> rv(rack_arrays.size(), kNaN);
                if (auto it = rack_of.find(r.id); it != rack_of.end()) {
                    const model::RackFrame& f = *it->second;
                    rv = {orNaN(f.inlet_mean_c),        orNaN(f.inlet_max_c), orNaN(f.exhaust_c),    orNaN(f.power_w / 1e3),
                          orNaN(f.heat_to_air_w / 1e3), orNaN(f.airflow_m3s), orNaN(f.capture_index)};
                }
                addValues(r.id, "rack", h.id, rv, {});
            }
        for (const auto& u : h.cooling_units) {
            const model::CoolingUnitModel* um = c.coolingUnit(u.model);
            if (!um) continue;
            const model::Box2 b = model::footprint(u.position_m, um->width_m, um->depth_m, u.facing);
            addBox(pts, polys, ox + b.x0, oy + b.y0, 0, ox + b.x1, oy + b.y1, um->height_m > 0 ? um->height_m : 2.0);
            std::vector<float> uv(unit_arrays.size(), kNaN);
            if (auto it = unit_of.find(u.id); it != unit_of.end()) {
                const model::CoolingUnitFrame& f = *it->second;
                uv = {orNaN(f.return_c), orNaN(f.supply_c), orNaN(f.load_w / 1e3), f.failed ? 1.f : 0.f};
            }
            addValues(u.id, "cooling_unit", h.id, {}, uv);
        }
    }
    vtkNew<vtkPolyData> pd;
    pd->SetPoints(pts);
    pd->SetPolys(polys);
    pd->GetCellData()->AddArray(ids);
    pd->GetCellData()->AddArray(kinds);
    pd->GetCellData()->AddArray(halls);
    for (auto& a : rack_arrays) pd->GetCellData()->AddArray(a);
    for (auto& a : unit_arrays) pd->GetCellData()->AddArray(a);
    if (frame) pd->GetCellData()->SetActiveScalars("inlet_mean_c");
    vtkNew<vtkXMLPolyDataWriter> w;
    w->SetInputData(pd);
    writeAtomically(w.GetPointer(), path, "hall (VTK PolyData)");
}

void writeAirFieldVti(const model::AirField& f, const model::Vec2& origin_m, const std::string& path) {
    const std::size_t n = static_cast<std::size_t>(f.nx) * f.ny * f.nz;
    if (f.nx <= 0 || f.ny <= 0 || f.nz <= 0 || !(f.cell_m > 0) || f.temp_c.size() != n)
        throw RenderError("air field: " + std::to_string(f.temp_c.size()) + " temperatures for a grid of " + std::to_string(f.nx) + " x " +
                          std::to_string(f.ny) + " x " + std::to_string(f.nz) + " cells");
    if (!f.velocity_ms.empty() && f.velocity_ms.size() != 3 * n)
        throw RenderError("air field: " + std::to_string(f.velocity_ms.size()) + " velocity values for " + std::to_string(n) + " cells");
    vtkNew<vtkImageData> img;
    img->SetDimensions(f.nx + 1, f.ny + 1, f.nz + 1);  // points at the cell corners: one VTK cell per grid cell
    img->SetSpacing(f.cell_m, f.cell_m, f.cell_m);
    img->SetOrigin(origin_m.x_m, origin_m.y_m, 0.0);
    vtkNew<vtkFloatArray> t;
    t->SetName("temperature_c");
    t->SetNumberOfValues(static_cast<vtkIdType>(n));
    vtkNew<vtkUnsignedCharArray> solid;
    solid->SetName("solid");
    solid->SetNumberOfValues(static_cast<vtkIdType>(n));
    // The grid's order (i + nx·(j + ny·k)) is VTK's cell order for image data.
    for (std::size_t c = 0; c < n; ++c) {
        t->SetValue(static_cast<vtkIdType>(c), f.temp_c[c]);
        solid->SetValue(static_cast<vtkIdType>(c), std::isnan(f.temp_c[c]) ? 1 : 0);
    }
    img->GetCellData()->AddArray(t);
    img->GetCellData()->AddArray(solid);
    img->GetCellData()->SetActiveScalars("temperature_c");
    if (!f.velocity_ms.empty()) {
        vtkNew<vtkFloatArray> v;
        v->SetName("velocity_ms");
        v->SetNumberOfComponents(3);
        v->SetNumberOfTuples(static_cast<vtkIdType>(n));
        for (std::size_t c = 0; c < n; ++c) v->SetTypedTuple(static_cast<vtkIdType>(c), f.velocity_ms.data() + 3 * c);
        img->GetCellData()->AddArray(v);
        img->GetCellData()->SetActiveVectors("velocity_ms");
    }
    vtkNew<vtkXMLImageDataWriter> w;
    w->SetInputData(img);
    writeAtomically(w.GetPointer(), path, "air field (VTK ImageData)");
}

void writePvd(const std::vector<PvdEntry>& entries, const std::string& path) {
    std::ostringstream o;
    o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n";
    auto attr = [](const std::string& s) {
        std::string r;
        for (char ch : s) {
            if (ch == '&') r += "&amp;";
            else if (ch == '"') r += "&quot;";
            else if (ch == '<') r += "&lt;";
            else if (ch == '>') r += "&gt;";
            else r += ch;
        }
        return r;
    };
    for (const auto& e : entries) {
        char t[64];
        std::snprintf(t, sizeof t, "%.17g", e.time_s);
        o << "    <DataSet timestep=\"" << t << "\" group=\"\" part=\"" << e.part << "\" file=\"" << attr(e.file) << "\"/>\n";
    }
    o << "  </Collection>\n</VTKFile>\n";
    try {
        model::writeFileAtomically(path, o.str());
    } catch (const std::exception& e) {
        throw RenderError(std::string("cannot write the collection ") + path + ": " + e.what());
    }
}

}  // namespace ct::render
