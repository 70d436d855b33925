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
    // The overlays, from their table (render/overlays.hpp): a toggle each, and a spin box for its number.
    const render::Overlays defaults;
    for (const render::OverlayInfo& info : render::overlayTable()) {
        QAction* a = addAction(QString::fromStdString(info.label));
        a->setObjectName(QString::fromStdString(info.object_name));
        a->setToolTip(QString::fromStdString(info.help));
        a->setCheckable(true);
        a->setChecked(defaults.*info.flag);
        connect(a, &QAction::toggled, this,
                [this, flag = info.flag](bool v) { changeOverlays([&](render::Overlays& o) { o.*flag = v; }); });
        if (!info.value) continue;
        auto* box = new QDoubleSpinBox;
        box->setObjectName(QString::fromStdString(info.object_name) + "Value");
        box->setRange(info.value_min, info.value_max);
        box->setSingleStep(info.value_step);
        box->setDecimals(info.value_step >= 1 ? 0 : 2);
        box->setValue(defaults.*info.value);
        const std::string& unit = info.value_name;
        if (const auto open = unit.find('('); open != std::string::npos)
            box->setSuffix(" " + QString::fromStdString(unit.substr(open + 1, unit.find(')') - open - 1)));
        box->setToolTip(QString::fromStdString(info.help));
        addWidget(box);
        connect(box, &QDoubleSpinBox::valueChanged, this,
                [this, value = info.value](double v) { changeOverlays([&](render::Overlays& o) { o.*value = v; }); });
    }
}

void SceneToolbar::changeOverlays(const std::function<void(render::Overlays&)>& change) {
    if (auto* sc = view_.scene()) {
        render::Overlays o = sc->overlays();
        change(o);
        sc->setOverlays(o);
        view_.update();
    }
}

void SceneToolbar::applyMetric() {
    if (auto* sc = view_.scene()) sc->setMetric(metric_->currentData().toString().toStdString());
    view_.update();
}

}  // namespace ct::app
