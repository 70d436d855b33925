#include "scene_toolbar.hpp"

#include "view3d.hpp"

#include <clustertwin/render/scene.hpp>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>

namespace ct::app {

SceneToolbar::SceneToolbar(View3D& view, QWidget* parent) : QToolBar(tr("3D view"), parent), view_(view) {
    setObjectName("sceneToolbar");
    addWidget(new QLabel(tr(" Colour by ")));
    metric_ = new QComboBox;
    metric_->setObjectName("metricBox");
    for (const auto& m : render::metrics()) metric_->addItem(QString::fromStdString(m.label), QString::fromStdString(m.id));
    metric_->setCurrentIndex(metric_->findData("nameplate_kw"));
    addWidget(metric_);
    connect(metric_, &QComboBox::currentIndexChanged, this, &SceneToolbar::applyMetric);
    addSeparator();
    for (const char* v : {"iso", "top", "aisle"}) {
        QAction* a = addAction(QString(v).replace(0, 1, QString(v).at(0).toUpper()));
        a->setToolTip(tr("Camera: %1 view").arg(v));
        connect(a, &QAction::triggered, this, [this, v] {
            if (auto* sc = view_.scene()) sc->setCamera(v);
            view_.update();
        });
    }
    QAction* fit = addAction(tr("Fit"));
    fit->setObjectName("actionZoomFit");
    fit->setShortcut(Qt::Key_Home);
    fit->setToolTip(tr("Zoom to fit the whole hall (Home)"));
    connect(fit, &QAction::triggered, &view_, &View3D::fit);
    QAction* frame = addAction(tr("Frame"));
    frame->setObjectName("actionFrameSelection");
    frame->setShortcut(Qt::Key_F);
    frame->setToolTip(tr("Zoom to the selection (F); the wheel zooms toward the cursor"));
    connect(frame, &QAction::triggered, &view_, &View3D::frameSelection);
    addSeparator();
    auto overlay = [&](const QString& text, const char* name, auto member, bool on) {
        QAction* a = addAction(text);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setChecked(on);
        connect(a, &QAction::toggled, this, [this, member](bool v) {
            if (auto* sc = view_.scene()) {
                render::Overlays o = sc->overlays();
                o.*member = v;
                sc->setOverlays(o);
                view_.update();
            }
        });
    };
    overlay(tr("Slice"), "overlaySlice", &render::Overlays::floor_slice, false);
    auto* height = new QDoubleSpinBox;
    height->setRange(0.1, 10);
    height->setSingleStep(0.25);
    height->setValue(1.0);
    height->setSuffix(tr(" m"));
    height->setToolTip(tr("Height of the horizontal slice"));
    addWidget(height);
    connect(height, &QDoubleSpinBox::valueChanged, this, [this](double h) {
        if (auto* sc = view_.scene()) {
            render::Overlays o = sc->overlays();
            o.slice_height_m = h;
            sc->setOverlays(o);
            view_.update();
        }
    });
    overlay(tr("Aisle slice"), "overlayAisle", &render::Overlays::aisle_slice, false);
    overlay(tr("27 °C surface"), "overlayIso", &render::Overlays::isosurface, false);
    overlay(tr("Streamlines"), "overlayStreamlines", &render::Overlays::streamlines, false);
    overlay(tr("Links"), "overlayLinks", &render::Overlays::links, true);
    overlay(tr("Labels"), "overlayLabels", &render::Overlays::labels, true);
}

void SceneToolbar::applyMetric() {
    if (auto* sc = view_.scene()) sc->setMetric(metric_->currentData().toString().toStdString());
    view_.update();
}

}  // namespace ct::app
