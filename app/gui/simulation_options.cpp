#include "simulation_options.hpp"

#include <QActionGroup>
#include <QMenu>

namespace ct::app {

SimulationOptions::SimulationOptions(QObject* parent) : QObject(parent) {}

void SimulationOptions::populate(QMenu* menu) {
    QMenu* air = menu->addMenu(tr("Room &air"));
    auto* group = new QActionGroup(this);
    lbm_ = air->addAction(tr("&Lattice Boltzmann (jets, buoyancy, turbulence)"));
    quick_ = air->addAction(tr("&Quick: potential flow (approximate)"));
    lbm_->setObjectName("actionAirLbm");
    quick_->setObjectName("actionAirQuick");
    lbm_->setToolTip(tr("Carries supply jets, plumes and recirculation: the answer to plan with"));
    quick_->setToolTip(tr("No momentum or buoyancy: jets do not cross the room, inlets can be far off; fast"));
    for (QAction* a : {lbm_, quick_}) {
        a->setCheckable(true);
        group->addAction(a);
    }
    lbm_->setChecked(true);
}

std::string SimulationOptions::air() const { return quick_ && quick_->isChecked() ? "quick" : "lbm"; }

void SimulationOptions::setAir(const std::string& name) {
    if (!lbm_ || name.empty()) return;  // a scenario without a choice keeps the session's
    (name == "quick" ? quick_ : lbm_)->setChecked(true);
}

} // namespace ct::app
