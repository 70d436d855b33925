#pragma once
// The main window: floor plan in the centre, scenario tree and properties in docks, File menu with recent
// files. Views talk through ScenarioDocument and EntityRef selections; the window only wires them.
#include "entity_ref.hpp"

#include <QMainWindow>

class QMenu;
class QDialog;

namespace ct::app {
class ScenarioDocument;
class ScenarioTree;
class PropertiesPanel;
class FloorPlanView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a scenario; on failure shows the problems dialog (window-modal, non-blocking) and keeps the
    /// current one. Returns whether it opened.
    bool openScenario(const QString& path);
    void select(const EntityRef& ref);

    ScenarioDocument& document() { return *doc_; }
    ScenarioTree* tree() const { return tree_; }
    PropertiesPanel* properties() const { return props_; }
    FloorPlanView* floorPlan() const { return plan_; }
    /// The last problems dialog shown (nullptr if none), for tests.
    QDialog* problemsDialog() const { return problems_; }

    /// The demo scenario shipped with the program ("" when it cannot be found).
    static QString demoScenarioPath();

private:
    void openDialog();
    void updateRecentMenu();
    void addRecent(const QString& path);

    ScenarioDocument* doc_;
    ScenarioTree* tree_;
    PropertiesPanel* props_;
    FloorPlanView* plan_;
    QMenu* recent_menu_ = nullptr;
    QDialog* problems_ = nullptr;
};

} // namespace ct::app
