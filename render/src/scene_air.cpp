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

void Scene::Impl::drawAir(const model::AirField& a, const model::Hall& in_hall, double hx, double hy) {
    const double c = a.cell_m;
    auto image = [&](int nx, int ny, int nz, double ox, double oy, double oz) {
        auto img = vtkSmartPointer<vtkImageData>::New();
        img->SetDimensions(nx, ny, nz);
        img->SetSpacing(c, c, c);
        img->SetOrigin(hx + ox, hy + oy, oz);
        return img;
    };
    auto at = [&](int i, int j, int k) { return a.temp_c[static_cast<std::size_t>(i) + static_cast<std::size_t>(a.nx) * (j + static_cast<std::size_t>(a.ny) * k)]; };
    auto sliceActor = [&](vtkImageData* img) {
        vtkNew<vtkDataSetMapper> m;
        m->SetInputData(img);
        m->SetLookupTable(air_lut);
        m->UseLookupTableScalarRangeOn();
        auto act = vtkSmartPointer<vtkActor>::New();
        act->SetMapper(m);
        act->PickableOff();
        act->GetProperty()->SetOpacity(0.85);
        ren->AddActor(act);
        air_props.push_back(act);
    };
    if (ov.floor_slice) {
        const int k = std::clamp(static_cast<int>(std::floor(ov.slice_height_m / c)), 0, a.nz - 1);
        auto img = image(a.nx, a.ny, 1, c / 2, c / 2, (k + 0.5) * c);
        vtkNew<vtkFloatArray> t;
        t->SetName("temp_c");
        t->SetNumberOfValues(static_cast<vtkIdType>(a.nx) * a.ny);
        for (int j = 0; j < a.ny; ++j)
            for (int i = 0; i < a.nx; ++i) t->SetValue(i + a.nx * j, at(i, j, k));
        img->GetPointData()->SetScalars(t);
        sliceActor(img);
    }
    if (ov.aisle_slice) {
        bool along_x = true;
        double where = 0;
        aislePlane(along_x, where, &in_hall);
        if (along_x) {
            const int j = std::clamp(static_cast<int>(std::floor(where / c)), 0, a.ny - 1);
            auto img = image(a.nx, 1, a.nz, c / 2, (j + 0.5) * c, c / 2);
            vtkNew<vtkFloatArray> t;
            t->SetNumberOfValues(static_cast<vtkIdType>(a.nx) * a.nz);
            for (int k = 0; k < a.nz; ++k)
                for (int i = 0; i < a.nx; ++i) t->SetValue(i + a.nx * k, at(i, j, k));
            img->GetPointData()->SetScalars(t);
            sliceActor(img);
        } else {
            const int i = std::clamp(static_cast<int>(std::floor(where / c)), 0, a.nx - 1);
            auto img = image(1, a.ny, a.nz, (i + 0.5) * c, c / 2, c / 2);
            vtkNew<vtkFloatArray> t;
            t->SetNumberOfValues(static_cast<vtkIdType>(a.ny) * a.nz);
            for (int k = 0; k < a.nz; ++k)
                for (int j = 0; j < a.ny; ++j) t->SetValue(j + a.ny * k, at(i, j, k));
            img->GetPointData()->SetScalars(t);
            sliceActor(img);
        }
    }
    if (ov.isosurface || ov.streamlines) {
        // Solids (NaN) count as cold for the contour and the streamline colours.
        auto vol = image(a.nx, a.ny, a.nz, c / 2, c / 2, c / 2);
        vtkNew<vtkFloatArray> t;
        t->SetName("temp_c");
        t->SetNumberOfValues(static_cast<vtkIdType>(a.temp_c.size()));
        float cold = std::numeric_limits<float>::max();
        for (float v : a.temp_c)
            if (!std::isnan(v)) cold = std::min(cold, v);
        for (std::size_t q = 0; q < a.temp_c.size(); ++q) t->SetValue(static_cast<vtkIdType>(q), std::isnan(a.temp_c[q]) ? cold : a.temp_c[q]);
        vol->GetPointData()->SetScalars(t);
        if (ov.isosurface) {
            vtkNew<vtkFlyingEdges3D> iso;
            iso->SetInputData(vol);
            iso->SetValue(0, ov.iso_c);
            iso->ComputeScalarsOff();
            iso->ComputeNormalsOn();
            vtkNew<vtkPolyDataMapper> m;
            m->SetInputConnection(iso->GetOutputPort());
            m->ScalarVisibilityOff();
            auto act = vtkSmartPointer<vtkActor>::New();
            act->SetMapper(m);
            act->GetProperty()->SetColor(1.0, 0.45, 0.1);
            act->GetProperty()->SetOpacity(0.45);
            act->PickableOff();
            ren->AddActor(act);
            air_props.push_back(act);
        }
        if (ov.streamlines && a.velocity_ms.size() == 3 * a.temp_c.size() && !a.supply_points_m.empty()) {
            vtkNew<vtkFloatArray> v;
            v->SetName("velocity");
            v->SetNumberOfComponents(3);
            v->SetNumberOfTuples(static_cast<vtkIdType>(a.temp_c.size()));
            std::copy(a.velocity_ms.begin(), a.velocity_ms.end(), v->GetPointer(0));
            vol->GetPointData()->SetVectors(v);
            vtkNew<vtkPoints> seeds;
            for (std::size_t q = 0; q + 2 < a.supply_points_m.size(); q += 3)
                seeds->InsertNextPoint(hx + a.supply_points_m[q], hy + a.supply_points_m[q + 1], a.supply_points_m[q + 2]);
            vtkNew<vtkPolyData> seed_pd;
            seed_pd->SetPoints(seeds);
            vtkNew<vtkStreamTracer> st;
            st->SetInputData(vol);
            st->SetSourceData(seed_pd);
            st->SetIntegratorTypeToRungeKutta4();
            st->SetIntegrationDirectionToForward();
            st->SetMaximumPropagation(2.0 * (in_hall.width_m + in_hall.depth_m));
            st->SetInitialIntegrationStep(0.5);
            st->SetIntegrationStepUnit(vtkStreamTracer::CELL_LENGTH_UNIT);
            st->SetMaximumNumberOfSteps(4000);
            st->SetTerminalSpeed(1e-3);
            vtkNew<vtkPolyDataMapper> m;
            m->SetInputConnection(st->GetOutputPort());
            m->SetLookupTable(air_lut);
            m->UseLookupTableScalarRangeOn();
            m->SetScalarModeToUsePointFieldData();
            m->SelectColorArray("temp_c");
            auto act = vtkSmartPointer<vtkActor>::New();
            act->SetMapper(m);
            act->GetProperty()->SetLineWidth(2);
            act->PickableOff();
            ren->AddActor(act);
            air_props.push_back(act);
        }
    }
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

} // namespace ct::render
