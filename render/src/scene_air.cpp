#include "scene_impl.hpp"

namespace ct::render {

void Scene::Impl::aislePlane(bool& along_x, double& where_m, const model::Hall* in) const {
    // Rows run along x when their racks face north or south; the first aisle lies between the first two
    // rows, or in front of a single row.
    const model::Hall* hh = in ? in : hall;
    along_x = true;
    where_m = hh->depth_m / 2;
    std::vector<double> centres;
    for (const auto& row : hh->rows) {
        if (row.racks.empty()) continue;
        const auto& r0 = row.racks.front();
        along_x = r0.facing == model::Facing::North || r0.facing == model::Facing::South;
        double sum = 0;
        for (const auto& r : row.racks) sum += along_x ? r.position_m.y_m : r.position_m.x_m;
        centres.push_back(sum / row.racks.size());
    }
    if (centres.size() >= 2) {
        std::sort(centres.begin(), centres.end());
        where_m = (centres[0] + centres[1]) / 2;
    } else if (centres.size() == 1) {
        const auto& r0 = hh->rows.front().racks.front();
        const double d = catalog.rack(r0.model) ? catalog.rack(r0.model)->depth_m : 1.2;
        const double sign = (r0.facing == model::Facing::North || r0.facing == model::Facing::East) ? 1 : -1;
        where_m = centres[0] + sign * (d / 2 + 0.6);
    }
}

void Scene::Impl::rebuildAir() {
    for (auto& p : air_props) ren->RemoveViewProp(p);
    air_props.clear();
    updateBars();
    // Every hall's field at its hall's place on the site (the scene's origin is the first hall's corner).
    for (const model::AirField& a : air) {
        if (a.nx <= 0 || a.ny <= 0 || a.nz <= 0 || a.hall < 0 || static_cast<std::size_t>(a.hall) >= scenario.halls.size()) continue;
        const model::Hall& h = scenario.halls[static_cast<std::size_t>(a.hall)];
        const double ox = &h == hall ? 0.0 : h.site_position_m.x_m - hall->site_position_m.x_m;
        const double oy = &h == hall ? 0.0 : h.site_position_m.y_m - hall->site_position_m.y_m;
        drawAir(a, h, ox, oy);
    }
}

namespace {

/// Draws a hall's air field: slices, the isosurface and streamlines, each added to the renderer and kept in
/// `props` so the next frame can take them away.
class AirDrawing {
public:
    AirDrawing(const model::AirField& a, double hx, double hy, vtkRenderer* ren, vtkLookupTable* lut,
               std::vector<vtkSmartPointer<vtkProp>>& props)
        : a_(a), c_(a.cell_m), hx_(hx), hy_(hy), ren_(ren), lut_(lut), props_(props) {}

    /// The horizontal slice at height z (m).
    void floorSlice(double z) {
        const int k = std::clamp(static_cast<int>(std::floor(z / c_)), 0, a_.nz - 1);
        auto img = image(a_.nx, a_.ny, 1, c_ / 2, c_ / 2, (k + 0.5) * c_);
        vtkNew<vtkFloatArray> t;
        t->SetName("temp_c");
        t->SetNumberOfValues(static_cast<vtkIdType>(a_.nx) * a_.ny);
        for (int j = 0; j < a_.ny; ++j)
            for (int i = 0; i < a_.nx; ++i) t->SetValue(i + a_.nx * j, at(i, j, k));
        img->GetPointData()->SetScalars(t);
        slice(img);
    }

    /// The vertical slice along an aisle: at y = where (along x) or x = where.
    void aisleSlice(bool along_x, double where) {
        vtkSmartPointer<vtkImageData> img;
        vtkNew<vtkFloatArray> t;
        if (along_x) {
            const int j = std::clamp(static_cast<int>(std::floor(where / c_)), 0, a_.ny - 1);
            img = image(a_.nx, 1, a_.nz, c_ / 2, (j + 0.5) * c_, c_ / 2);
            t->SetNumberOfValues(static_cast<vtkIdType>(a_.nx) * a_.nz);
            for (int k = 0; k < a_.nz; ++k)
                for (int i = 0; i < a_.nx; ++i) t->SetValue(i + a_.nx * k, at(i, j, k));
        } else {
            const int i = std::clamp(static_cast<int>(std::floor(where / c_)), 0, a_.nx - 1);
            img = image(1, a_.ny, a_.nz, (i + 0.5) * c_, c_ / 2, c_ / 2);
            t->SetNumberOfValues(static_cast<vtkIdType>(a_.ny) * a_.nz);
            for (int k = 0; k < a_.nz; ++k)
                for (int j = 0; j < a_.ny; ++j) t->SetValue(j + a_.ny * k, at(i, j, k));
        }
        img->GetPointData()->SetScalars(t);
        slice(img);
    }

    /// The whole field as a volume; solids (NaN) count as cold for the contour and the streamline colours.
    vtkSmartPointer<vtkImageData> volume() {
        auto vol = image(a_.nx, a_.ny, a_.nz, c_ / 2, c_ / 2, c_ / 2);
        vtkNew<vtkFloatArray> t;
        t->SetName("temp_c");
        t->SetNumberOfValues(static_cast<vtkIdType>(a_.temp_c.size()));
        float cold = std::numeric_limits<float>::max();
        for (float v : a_.temp_c)
            if (!std::isnan(v)) cold = std::min(cold, v);
        for (std::size_t q = 0; q < a_.temp_c.size(); ++q)
            t->SetValue(static_cast<vtkIdType>(q), std::isnan(a_.temp_c[q]) ? cold : a_.temp_c[q]);
        vol->GetPointData()->SetScalars(t);
        return vol;
    }

    void isosurface(vtkImageData* vol, double iso_c) {
        vtkNew<vtkFlyingEdges3D> iso;
        iso->SetInputData(vol);
        iso->SetValue(0, iso_c);
        iso->ComputeScalarsOff();
        iso->ComputeNormalsOn();
        vtkNew<vtkPolyDataMapper> m;
        m->SetInputConnection(iso->GetOutputPort());
        m->ScalarVisibilityOff();
        auto act = vtkSmartPointer<vtkActor>::New();
        act->SetMapper(m);
        act->GetProperty()->SetColor(1.0, 0.45, 0.1);
        act->GetProperty()->SetOpacity(0.45);
        add(act);
    }

    /// Streamlines from the supply points, forward, coloured by temperature; at most twice the hall's
    /// width plus depth long.
    void streamlines(vtkImageData* vol, double max_length_m) {
        vtkNew<vtkFloatArray> v;
        v->SetName("velocity");
        v->SetNumberOfComponents(3);
        v->SetNumberOfTuples(static_cast<vtkIdType>(a_.temp_c.size()));
        std::copy(a_.velocity_ms.begin(), a_.velocity_ms.end(), v->GetPointer(0));
        vol->GetPointData()->SetVectors(v);
        vtkNew<vtkPoints> seeds;
        for (std::size_t q = 0; q + 2 < a_.supply_points_m.size(); q += 3)
            seeds->InsertNextPoint(hx_ + a_.supply_points_m[q], hy_ + a_.supply_points_m[q + 1], a_.supply_points_m[q + 2]);
        vtkNew<vtkPolyData> seed_pd;
        seed_pd->SetPoints(seeds);
        vtkNew<vtkStreamTracer> st;
        st->SetInputData(vol);
        st->SetSourceData(seed_pd);
        st->SetIntegratorTypeToRungeKutta4();
        st->SetIntegrationDirectionToForward();
        st->SetMaximumPropagation(max_length_m);
        st->SetInitialIntegrationStep(0.5);
        st->SetIntegrationStepUnit(vtkStreamTracer::CELL_LENGTH_UNIT);
        st->SetMaximumNumberOfSteps(4000);
        st->SetTerminalSpeed(1e-3);
        vtkNew<vtkPolyDataMapper> m;
        m->SetInputConnection(st->GetOutputPort());
        m->SetLookupTable(lut_);
        m->UseLookupTableScalarRangeOn();
        m->SetScalarModeToUsePointFieldData();
        m->SelectColorArray("temp_c");
        auto act = vtkSmartPointer<vtkActor>::New();
        act->SetMapper(m);
        act->GetProperty()->SetLineWidth(2);
        add(act);
    }

private:
    vtkSmartPointer<vtkImageData> image(int nx, int ny, int nz, double ox, double oy, double oz) const {
        auto img = vtkSmartPointer<vtkImageData>::New();
        img->SetDimensions(nx, ny, nz);
        img->SetSpacing(c_, c_, c_);
        img->SetOrigin(hx_ + ox, hy_ + oy, oz);
        return img;
    }
    float at(int i, int j, int k) const {
        return a_.temp_c[static_cast<std::size_t>(i) + static_cast<std::size_t>(a_.nx) * (j + static_cast<std::size_t>(a_.ny) * k)];
    }
    void slice(vtkImageData* img) {
        vtkNew<vtkDataSetMapper> m;
        m->SetInputData(img);
        m->SetLookupTable(lut_);
        m->UseLookupTableScalarRangeOn();
        auto act = vtkSmartPointer<vtkActor>::New();
        act->SetMapper(m);
        act->GetProperty()->SetOpacity(0.85);
        add(act);
    }
    void add(vtkActor* act) {
        act->PickableOff();
        ren_->AddActor(act);
        props_.push_back(act);
    }

    const model::AirField& a_;
    const double c_, hx_, hy_;
    vtkRenderer* ren_;
    vtkLookupTable* lut_;
    std::vector<vtkSmartPointer<vtkProp>>& props_;
};

}  // namespace

void Scene::Impl::drawAir(const model::AirField& a, const model::Hall& in_hall, double hx, double hy) {
    AirDrawing d(a, hx, hy, ren, air_lut, air_props);
    if (ov.floor_slice) d.floorSlice(ov.slice_height_m);
    if (ov.aisle_slice) {
        bool along_x = true;
        double where = 0;
        aislePlane(along_x, where, &in_hall);
        d.aisleSlice(along_x, where);
    }
    if (!ov.isosurface && !ov.streamlines) return;
    const vtkSmartPointer<vtkImageData> vol = d.volume();
    if (ov.isosurface) d.isosurface(vol, ov.iso_c);
    if (ov.streamlines && a.velocity_ms.size() == 3 * a.temp_c.size() && !a.supply_points_m.empty())
        d.streamlines(vol, 2.0 * (in_hall.width_m + in_hall.depth_m));
}

void Scene::Impl::outline(Outline& o, const std::vector<std::pair<std::string, std::array<unsigned char, 3>>>& items, double grow) {
    o.pts->Reset();
    o.lines->Reset();
    o.colours->Reset();
    o.colours->SetNumberOfComponents(3);
    o.boxes = 0;
    for (const auto& [id, rgb] : items) {
        double lo[3], hi[3];
        std::string key = id;
        if (!boundsOf(key, lo, hi)) {
            key = nodeOfGpu(id);  // a GPU: its node's box
            if (key.empty() || !boundsOf(key, lo, hi)) continue;
        }
        for (int a = 0; a < 3; ++a) {
            lo[a] -= grow;
            hi[a] += grow;
        }
        vtkIdType base = o.pts->GetNumberOfPoints();
        for (int k = 0; k < 8; ++k) o.pts->InsertNextPoint(k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]);
        static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
        for (const auto& e : edges) {
            const vtkIdType ids[2] = {base + e[0], base + e[1]};
            o.lines->InsertNextCell(2, ids);
            o.colours->InsertNextTypedTuple(rgb.data());
        }
        ++o.boxes;
    }
    o.pd->SetPoints(o.pts);
    o.pd->SetLines(o.lines);
    o.pd->GetCellData()->SetScalars(o.colours);
    o.pd->Modified();
    if (!o.mapper->GetInput()) {
        o.mapper->SetInputData(o.pd);
        o.mapper->SetColorModeToDirectScalars();
        o.mapper->SetScalarModeToUseCellData();
        o.actor->SetMapper(o.mapper);
        o.actor->GetProperty()->SetLineWidth(3);
        o.actor->PickableOff();
        ren->AddActor(o.actor);
    }
    o.actor->SetVisibility(o.boxes > 0);
}

}  // namespace ct::render
