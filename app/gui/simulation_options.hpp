#pragma once
// Simulation > Room air: which air solver the next run uses. Lattice Boltzmann (the default, the answer to plan
// with) or quick (potential flow, approximate); a scenario's own choice (simulation.air) is taken when it is
// opened, and the menu overrides it for this session (a scenario without a choice keeps the menu's).
#include <QObject>
#include <QString>

#include <string>

class QAction;
class QMenu;

namespace ct::app {

class SimulationOptions : public QObject {
    Q_OBJECT
public:
    explicit SimulationOptions(QObject* parent = nullptr);
    /// Adds the Room air submenu.
    void populate(QMenu* menu);
    /// "lbm" or "quick".
    std::string air() const;
    /// Checks the named solver; an empty name changes nothing.
    void setAir(const std::string& name);

private:
    QAction* lbm_ = nullptr;
    QAction* quick_ = nullptr;
};

} // namespace ct::app
