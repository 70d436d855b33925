#include "simulation_options.hpp"

#include <clustertwin/sim/air/air_solver.hpp>

#include <QActionGroup>
#include <QMenu>

namespace ct::app {

SimulationOptions::SimulationOptions(QObject* parent) : QObject(parent) {}

void SimulationOptions::populate(QMenu* menu) {
    // One action per room-air solver, as the solver table describes them (sim::airSolvers()): a new solver
    // appears here without a change to this file. The first is the default.
    QMenu* air = menu->addMenu(tr("Room &air"));
    auto* group = new QActionGroup(this);
    for (const auto& s : sim::airSolvers()) {
        QAction* a = air->addAction("&" + QString::fromStdString(s.label));
        QString name = QString::fromStdString(s.name);
        a->setObjectName("actionAir" + name.left(1).toUpper() + name.mid(1));
        a->setToolTip(QString::fromStdString(s.help));
        a->setData(name);
        a->setCheckable(true);
        group->addAction(a);
        actions_.push_back(a);
    }
    if (!actions_.empty()) actions_.front()->setChecked(true);
}

std::string SimulationOptions::air() const {
    for (QAction* a : actions_)
        if (a->isChecked()) return a->data().toString().toStdString();
    return sim::airSolverNames().front();
}

void SimulationOptions::setAir(const std::string& name) {
    if (name.empty()) return;  // a scenario without a choice keeps the session's
    for (QAction* a : actions_)
        if (a->data().toString().toStdString() == name) a->setChecked(true);
}

}  // namespace ct::app
