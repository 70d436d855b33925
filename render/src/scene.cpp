#include <clustertwin/render/scene.hpp>

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/geometry.hpp>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkCubeSource.h>
#include <vtkDoubleArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <filesystem>

namespace ct::render {

namespace {

/// Boxes as glyphs: one point per box with its size (x, y, z) and a colour.
struct Boxes {
    vtkNew<vtkPoints> points;
    vtkNew<vtkDoubleArray> scale;
    vtkNew<vtkDoubleArray> value;
    Boxes() {
        scale->SetNumberOfComponents(3);
        scale->SetName("scale");
        value->SetName("value");
    }
    void add(const model::Box2& b, double height_m, double v) {
        points->InsertNextPoint((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2, height_m / 2);
        scale->InsertNextTuple3(b.width(), b.depth(), height_m);
        value->InsertNextValue(v);
    }
    vtkSmartPointer<vtkActor> actor(vtkLookupTable* lut, double lo, double hi) {
        vtkNew<vtkPolyData> pd;
        pd->SetPoints(points);
        pd->GetPointData()->AddArray(scale);
        pd->GetPointData()->SetScalars(value);
        vtkNew<vtkCubeSource> cube;
        vtkNew<vtkGlyph3DMapper> mapper;
        mapper->SetInputData(pd);
        mapper->SetSourceConnection(cube->GetOutputPort());
        mapper->SetScaleArray("scale");
        mapper->SetScaleModeToScaleByVectorComponents();
        mapper->SetLookupTable(lut);
        mapper->SetScalarRange(lo, hi);
        mapper->ScalarVisibilityOn();
        auto a = vtkSmartPointer<vtkActor>::New();
        a->SetMapper(mapper);
        return a;
    }
};

} // namespace

void renderScenarioPng(const model::Scenario& s, const model::Catalog& c, const std::string& png_path,
                       const RenderOptions& opt) {
    if (opt.width < 16 || opt.height < 16 || opt.width > 8192 || opt.height > 8192)
        throw RenderError("image size must be within 16..8192 pixels per side");
    if (opt.view != "iso" && opt.view != "top") throw RenderError("unknown view '" + opt.view + "' (iso, top)");
    if (s.halls.empty()) throw RenderError("the scenario has no hall to render");
    const model::Hall& h = s.halls.front();

    vtkNew<vtkRenderer> ren;
    ren->SetBackground(0.12, 0.13, 0.16);

    // Floor slab.
    vtkNew<vtkCubeSource> floor;
    floor->SetBounds(0, h.width_m, 0, h.depth_m, -0.05, 0);
    vtkNew<vtkPolyDataMapper> floor_mapper;
    floor_mapper->SetInputConnection(floor->GetOutputPort());
    vtkNew<vtkActor> floor_actor;
    floor_actor->SetMapper(floor_mapper);
    floor_actor->GetProperty()->SetColor(0.55, 0.57, 0.6);
    ren->AddActor(floor_actor);

    // Racks coloured by nameplate power (kW).
    Boxes racks;
    double pmax = 1;
    for (const auto& row : h.rows)
        for (const auto& r : row.racks) {
            const model::RackModel* rm = c.rack(r.model);
            if (!rm) continue;
            const double kw = model::rackNameplatePowerW(r, c) / 1000.0;
            pmax = std::max(pmax, kw);
            racks.add(model::footprint(r.position_m, rm->width_m, rm->depth_m, r.facing), rm->height_m, kw);
        }
    vtkNew<vtkLookupTable> lut;
    lut->SetHueRange(0.66, 0.0);
    lut->SetRange(0, pmax);
    lut->Build();
    ren->AddActor(racks.actor(lut, 0, pmax));

    // Cooling units (blue) and CDUs (teal), fixed colours.
    Boxes units;
    for (const auto& u : h.cooling_units)
        if (const auto* m = c.coolingUnit(u.model))
            units.add(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing), m->height_m, 0);
    for (const auto& u : h.cdus)
        if (const auto* m = c.cdu(u.model))
            units.add(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing), m->height_m, 1);
    vtkNew<vtkLookupTable> unit_lut;
    unit_lut->SetNumberOfTableValues(2);
    unit_lut->SetTableValue(0, 0.25, 0.55, 0.95);
    unit_lut->SetTableValue(1, 0.2, 0.8, 0.75);
    unit_lut->SetRange(0, 1);
    if (units.points->GetNumberOfPoints() > 0) ren->AddActor(units.actor(unit_lut, 0, 1));

    vtkNew<vtkScalarBarActor> bar;
    bar->SetLookupTable(lut);
    bar->SetTitle("Rack nameplate (kW)");
    bar->SetNumberOfLabels(5);
    bar->SetLabelFormat("%.0f");
    bar->SetMaximumWidthInPixels(90);
    bar->GetTitleTextProperty()->SetFontSize(14);
    ren->AddActor2D(bar);

    vtkCamera* cam = ren->GetActiveCamera();
    const double cx = h.width_m / 2, cy = h.depth_m / 2, span = std::max(h.width_m, h.depth_m);
    cam->SetFocalPoint(cx, cy, 0.5);
    if (opt.view == "top") {
        cam->SetPosition(cx, cy, span * 2);
        cam->SetViewUp(0, 1, 0);
    } else {
        cam->SetPosition(cx - 0.9 * span, cy - 1.1 * span, span * 0.9);
        cam->SetViewUp(0, 0, 1);
    }
    ren->ResetCamera();
    ren->ResetCameraClippingRange();

    vtkNew<vtkRenderWindow> win;
    win->SetOffScreenRendering(1);
    win->SetSize(opt.width, opt.height);
    win->AddRenderer(ren);
    win->Render();

    vtkNew<vtkWindowToImageFilter> grab;
    grab->SetInput(win);
    grab->ReadFrontBufferOff();
    grab->Update();
    const std::string tmp = png_path + ".tmp.png";
    vtkNew<vtkPNGWriter> writer;
    writer->SetFileName(tmp.c_str());
    writer->SetInputConnection(grab->GetOutputPort());
    writer->Write();
    std::error_code ec;
    if (writer->GetErrorCode() != 0 || !std::filesystem::exists(tmp, ec))
        throw RenderError(png_path + ": cannot write the PNG");
    std::filesystem::rename(tmp, png_path, ec);
    if (ec) throw RenderError(png_path + ": cannot write the PNG: " + ec.message());
}

} // namespace ct::render
