// Close-coupled cooling in the 3D view (issue 18): rear doors as slabs on the racks' backs, containment as
// translucent panels (roof and end doors), and a legend of what each colour of equipment means.
#include "scene_impl.hpp"

#include <clustertwin/model/containment.hpp>

#include <vtkLegendBoxActor.h>

namespace ct::render {

void Scene::Impl::buildCooling(const model::Hall& h, double ox, double oy) {
    for (const auto& row : h.rows)
        for (const auto& r : row.racks) {
            if (!r.rear_door) continue;
            const auto* rm = catalog.rack(r.model);
            const auto* dm = catalog.rearDoor(r.rear_door->model);
            if (!rm || !dm) continue;
            const model::Box2 b = shifted(model::footprint(r.position_m, rm->width_m, rm->depth_m, r.facing), ox, oy);
            const double d = std::max(0.08, dm->depth_m);
            model::Box2 door = b;  // a slab on the back, the whole width of the rack
            switch (r.facing) {
                case model::Facing::North:
                    door.y1 = b.y0, door.y0 = b.y0 - d;
                    break;
                case model::Facing::South:
                    door.y0 = b.y1, door.y1 = b.y1 + d;
                    break;
                case model::Facing::East:
                    door.x1 = b.x0, door.x0 = b.x0 - d;
                    break;
                case model::Facing::West:
                    door.x0 = b.x1, door.x1 = b.x1 + d;
                    break;
            }
            doors.add(r.id + "/rear-door", door.x0, door.y0, 0.02, door.x1, door.y1, rm->height_m * 0.97, 0);
            door_loop.push_back(r.rear_door->loop);
        }
    auto quad = [&](int kind, const double p[4][3]) {
        vtkIdType ids[4];
        for (int i = 0; i < 4; ++i) ids[i] = panel_points[kind]->InsertNextPoint(p[i][0] + ox, p[i][1] + oy, p[i][2]);
        panel_cells[kind]->InsertNextCell(4, ids);
    };
    for (const auto& c : h.containments) {
        const int kind = c.kind == "hot" ? 0 : 1;
        for (const auto& a : model::containedAisles(h, c, catalog)) {
            const model::Box2& b = a.box;
            const double z = a.roof_m;
            if (c.roof) {
                const double roof[4][3] = {{b.x0, b.y0, z}, {b.x1, b.y0, z}, {b.x1, b.y1, z}, {b.x0, b.y1, z}};
                quad(kind, roof);
            }
            if (c.end_doors) {
                if (a.along_x) {
                    for (double x : {b.x0, b.x1}) {
                        const double door[4][3] = {{x, b.y0, 0}, {x, b.y1, 0}, {x, b.y1, z}, {x, b.y0, z}};
                        quad(kind, door);
                    }
                } else {
                    for (double y : {b.y0, b.y1}) {
                        const double door[4][3] = {{b.x0, y, 0}, {b.x1, y, 0}, {b.x1, y, z}, {b.x0, y, z}};
                        quad(kind, door);
                    }
                }
            }
        }
    }
}

void Scene::Impl::finishCooling() {
    door_lut = vtkSmartPointer<vtkLookupTable>::New();
    door_lut->SetNumberOfTableValues(2);
    door_lut->SetTableValue(0, 0.95, 0.72, 0.2);  // rear door
    door_lut->SetTableValue(1, 0.9, 0.15, 0.15);  // its water loop has failed
    door_lut->SetTableRange(0, 1);
    doors.build(door_lut, ren);
    const double colour[2][3] = {{1.0, 0.45, 0.3}, {0.45, 0.75, 1.0}};
    bool panels[2] = {false, false};
    for (int k = 0; k < 2; ++k) {
        if (panel_cells[k]->GetNumberOfCells() == 0) continue;
        panels[k] = true;
        vtkNew<vtkPolyData> pd;
        pd->SetPoints(panel_points[k]);
        pd->SetPolys(panel_cells[k]);
        vtkNew<vtkPolyDataMapper> m;
        m->SetInputData(pd);
        vtkNew<vtkActor> a;
        a->SetMapper(m);
        a->GetProperty()->SetColor(colour[k][0], colour[k][1], colour[k][2]);
        a->GetProperty()->SetOpacity(0.3);
        a->GetProperty()->BackfaceCullingOff();
        a->PickableOff();
        ren->AddActor(a);
    }
    // The legend: only what this site has.
    struct Entry {
        const char* text;
        double rgb[3];
    };
    std::vector<Entry> entries;
    bool perimeter = false, inrow = false, cdu = false;
    for (double k : unit_kind) {
        perimeter = perimeter || k == 0;
        cdu = cdu || k == 1;
        inrow = inrow || k == 3;
    }
    if (perimeter) entries.push_back({"CRAH / CRAC", {0.25, 0.55, 0.95}});
    if (inrow) entries.push_back({"In-row cooler", {0.62, 0.42, 0.95}});
    if (cdu) entries.push_back({"CDU", {0.2, 0.8, 0.75}});
    if (doors.size()) entries.push_back({"Rear door", {0.95, 0.72, 0.2}});
    if (panels[0]) entries.push_back({"Hot-aisle containment", {colour[0][0], colour[0][1], colour[0][2]}});
    if (panels[1]) entries.push_back({"Cold-aisle containment", {colour[1][0], colour[1][1], colour[1][2]}});
    if (!entries.empty()) entries.push_back({"Failed", {0.9, 0.15, 0.15}});
    if (entries.empty()) return;
    vtkNew<vtkCubeSource> square;
    square->SetBounds(-0.5, 0.5, -0.5, 0.5, 0, 0);
    square->Update();
    vtkNew<vtkLegendBoxActor> box;
    box->SetNumberOfEntries(static_cast<int>(entries.size()));
    for (std::size_t i = 0; i < entries.size(); ++i)
        box->SetEntry(static_cast<int>(i), square->GetOutput(), entries[i].text, entries[i].rgb);
    box->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    box->GetPositionCoordinate()->SetValue(0.80, 0.74);
    box->GetPosition2Coordinate()->SetCoordinateSystemToNormalizedViewport();
    box->GetPosition2Coordinate()->SetValue(0.19, 0.03 * static_cast<double>(entries.size()) + 0.02);
    box->UseBackgroundOn();
    box->SetBackgroundColor(0.05, 0.06, 0.08);
    box->SetBackgroundOpacity(0.7);
    box->BorderOff();
    box->GetEntryTextProperty()->SetColor(0.95, 0.95, 0.95);
    box->GetEntryTextProperty()->SetFontSize(12);
    box->PickableOff();
    legend = box.Get();
    ren->AddActor2D(legend);
}

}  // namespace ct::render
