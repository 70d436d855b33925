// The scene as glTF 2.0 (Scene::exportGltf): what the 3D view draws, for other 3D tools.
#include "scene_impl.hpp"

#include <vtkActorCollection.h>
#include <vtkGLTFExporter.h>
#include <vtkImageData.h>
#include <vtkProperty.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace ct::render {

namespace {

/// A set of glyph boxes as one explicit mesh (24 points and 6 quads per box, each point carrying the box's
/// value), drawn with the boxes' colour table and look: glTF's exporter writes only plain meshes.
vtkSmartPointer<vtkActor> meshOf(const Boxes& b) {
    vtkNew<vtkPoints> pts;
    vtkNew<vtkCellArray> quads;
    vtkNew<vtkDoubleArray> values;
    values->SetName("value");
    for (std::size_t i = 0; i < b.size(); ++i) {
        const double* lo = b.bounds[i].lo;
        const double* hi = b.bounds[i].hi;
        const double v = b.value->GetValue(static_cast<vtkIdType>(i));
        // Faces as (axis, side): four corners each, so that every face is flat-shaded on its own.
        for (int axis = 0; axis < 3; ++axis)
            for (int side = 0; side < 2; ++side) {
                const int u = (axis + 1) % 3, w = (axis + 2) % 3;
                const vtkIdType first = pts->GetNumberOfPoints();
                const int corners[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
                for (const auto& c : corners) {
                    double p[3];
                    p[axis] = side ? hi[axis] : lo[axis];
                    p[u] = c[0] ? hi[u] : lo[u];
                    p[w] = c[1] ? hi[w] : lo[w];
                    pts->InsertNextPoint(p);
                    values->InsertNextValue(v);
                }
                // Counter-clockwise seen from outside.
                const vtkIdType ids[4] = {first, side ? first + 1 : first + 3, first + 2, side ? first + 3 : first + 1};
                quads->InsertNextCell(4, ids);
            }
    }
    vtkNew<vtkPolyData> pd;
    pd->SetPoints(pts);
    pd->SetPolys(quads);
    pd->GetPointData()->SetScalars(values);
    vtkNew<vtkPolyDataMapper> m;
    m->SetInputData(pd);
    m->SetLookupTable(b.mapper->GetLookupTable());
    m->SetUseLookupTableScalarRange(b.mapper->GetUseLookupTableScalarRange());
    m->SetScalarVisibility(b.mapper->GetScalarVisibility());
    auto a = vtkSmartPointer<vtkActor>::New();
    a->SetMapper(m);
    a->SetProperty(b.actor->GetProperty());
    a->SetVisibility(b.actor->GetVisibility());
    return a;
}

}  // namespace

void Scene::exportGltf(const std::string& path) {
    // The exporter walks a renderer's visible actors (meshes with their colours, the current metric's included).
    // Racks, nodes, units, doors and switches are drawn as glyphs, which it skips: they go in as explicit
    // meshes. Text and other 2D overlays have no place in glTF and are left out. No OpenGL context is needed.
    Impl& d = *d_;
    vtkNew<vtkRenderer> ren;
    vtkNew<vtkRenderWindow> win;
    win->AddRenderer(ren);
    std::vector<const Boxes*> sets = {&d.racks, &d.nodes, &d.units, &d.doors, d.switches.get()};
    std::vector<vtkActor*> glyph_actors;
    for (const Boxes* b : sets) glyph_actors.push_back(b->actor.GetPointer());
    vtkActorCollection* actors = d.ren->GetActors();
    actors->InitTraversal();
    while (vtkActor* a = actors->GetNextActor())
        if (std::find(glyph_actors.begin(), glyph_actors.end(), a) == glyph_actors.end()) ren->AddActor(a);
    for (const Boxes* b : sets)
        if (b->size() > 0) ren->AddActor(meshOf(*b));
    const std::string tmp = path + ".tmp.gltf";
    vtkNew<vtkGLTFExporter> ex;
    ex->SetRenderWindow(win);
    ex->SetFileName(tmp.c_str());
    ex->InlineDataOn();  // one self-contained file: buffers as base64 data URIs
    ex->SaveNormalOn();
    ex->Write();
    std::error_code ec;
    if (!std::filesystem::exists(tmp, ec) || std::filesystem::file_size(tmp, ec) == 0) {
        std::filesystem::remove(tmp, ec);
        throw RenderError(path + ": cannot write the glTF file");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw RenderError(path + ": cannot write the glTF file: " + ec.message());
    }
}

void Scene::setCaption(const std::string& text) {
    // Wrapped at spaces to the window's width (22 pt type is ~12 px a character at the window's DPI).
    const int* size = d_->win->GetSize();
    const double px_per_char = 12.0 * d_->win->GetDPI() / 72.0;
    const std::size_t per_line = static_cast<std::size_t>(std::max(20.0, 0.92 * size[0] / px_per_char));
    std::string wrapped;
    std::size_t line = 0;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (line > 0 && line + 1 + w.size() > per_line) {
            wrapped += '\n';
            line = 0;
        } else if (line > 0) {
            wrapped += ' ';
            ++line;
        }
        wrapped += w;
        line += w.size();
    }
    d_->caption_actor->SetInput(wrapped.c_str());
    d_->caption_actor->SetVisibility(!text.empty());
}

std::vector<unsigned char> Scene::grabRgb(int& width, int& height) {
    d_->win->Render();
    vtkNew<vtkWindowToImageFilter> grab;
    grab->SetInput(d_->win);
    grab->SetInputBufferTypeToRGB();
    grab->ReadFrontBufferOff();
    grab->Update();
    vtkImageData* img = grab->GetOutput();
    int dims[3];
    img->GetDimensions(dims);
    auto* px = static_cast<unsigned char*>(img->GetScalarPointer());
    if (!px || dims[0] <= 0 || dims[1] <= 0 || img->GetNumberOfScalarComponents() != 3)
        throw RenderError("cannot read the rendered picture");
    width = dims[0];
    height = dims[1];
    // VTK's rows run bottom-up; a video's top-down.
    std::vector<unsigned char> out(static_cast<std::size_t>(width) * height * 3);
    const std::size_t row = static_cast<std::size_t>(width) * 3;
    for (int y = 0; y < height; ++y)
        std::copy_n(px + static_cast<std::size_t>(height - 1 - y) * row, row, out.data() + static_cast<std::size_t>(y) * row);
    return out;
}

}  // namespace ct::render
