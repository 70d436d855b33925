#include "navigator.hpp"

#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "view3d.hpp"

#include <QTabWidget>

#include <cmath>

namespace ct::app {

Navigator::Navigator(const ScenarioDocument& doc, RunController& run, View3D& view, QTabWidget& tabs, QObject* parent)
    : QObject(parent), doc_(doc), run_(run), view_(view), tabs_(tabs) {}

void Navigator::showInViewAndTime(const EntityRef& ref) {
    const auto& sc = doc_.scenario();
    if (ref.kind == "event") {
        const int i = ref.id.toInt();
        if (i < 0 || i >= static_cast<int>(sc.events.size())) return;
        const auto& e = sc.events[static_cast<std::size_t>(i)];
        if (run_.hasRun()) run_.setTime(e.time_s);
        const EntityRef target = doc_.refOf(QString::fromStdString(e.target));
        if (target.isValid()) view_.focus(target);
        return;
    }
    if (ref.kind == "job") {
        for (const auto& j : sc.jobs)
            if (QString::fromStdString(j.id) == ref.id && !j.nodes.empty())
                view_.focus(doc_.refOf(QString::fromStdString(j.nodes.front())));
        return;
    }
    if (ref.kind == "rack" || ref.kind == "node" || ref.kind == "gpu" || ref.kind == "cooling_unit" || ref.kind == "cdu") view_.focus(ref);
}

void Navigator::activate(const QString& id, double t_s) {
    if (!std::isnan(t_s) && run_.hasRun()) run_.setTime(t_s);  // the timeline goes to the alert, so that what it names is seen
    const EntityRef ref = doc_.refOf(id);
    if (!ref.isValid()) return;
    emit selectRequested(ref);
    tabs_.setCurrentWidget(&view_);
    view_.focus(ref);
}

}  // namespace ct::app
