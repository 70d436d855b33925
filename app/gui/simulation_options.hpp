#pragma once
// Simulation > Room air: which air solver the next run uses, one action per solver of sim::airSolvers() (the first,
// lattice Boltzmann, is the default and the answer to plan with); a scenario's own choice (simulation.air) is taken
// when it is opened, and the menu overrides it for this session (a scenario without a choice keeps the menu's).
#include <QObject>
#include <QString>

#include <string>
#include <vector>

class QAction;
class QMenu;

namespace ct::app {

class SimulationOptions : public QObject {
    Q_OBJECT
public:
    explicit SimulationOptions(QObject* parent = nullptr);
    /// Adds the Room air submenu.
    void populate(QMenu* menu);
    /// The checked solver's name ("lbm", "quick").
    std::string air() const;
    /// Checks the named solver; an empty name changes nothing.
    void setAir(const std::string& name);

private:
    std::vector<QAction*> actions_;  ///< one per solver, in the table's order
};

}  // namespace ct::app
