// The app shell (issue 8): opens the demo, shows the tree, selection in tree and floor plan shows the
// properties, an invalid file opens a dialog listing its problems with their JSON pointers.
#include "floor_plan_view.hpp"
#include "main_window.hpp"
#include "problems_dialog.hpp"
#include "properties_panel.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"

#include <QApplication>
#include <QTest>
#include <QDir>
#include <QLabel>
#include <QSet>
#include <QTreeWidget>

using namespace ct::app;

class TstApp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void opensTheDemoAndShowsTheTree();
    void selectingARackInTheTreeShowsItsProperties();
    void clickingARackOnTheFloorPlanSelectsItInTheTree();
    void anInvalidFileListsItsProblemsAndKeepsTheScenario();
    void aSyntaxErrorNamesTheLine();
    void screenshotIsNotBlank();

private:
    std::unique_ptr<MainWindow> w_;
};

void TstApp::initTestCase() {
    QApplication::setOrganizationName("ClusterTwinTests");
    w_ = std::make_unique<MainWindow>();
    QVERIFY(!MainWindow::demoScenarioPath().isEmpty());
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
}

void TstApp::opensTheDemoAndShowsTheTree() {
    QCOMPARE(w_->document().scenario().id, std::string("demo"));
    QVERIFY(w_->windowTitle().contains("Demo hall"));
    ScenarioTree* t = w_->tree();
    QVERIFY(t->itemFor({"rack", "r01-01"}));
    QVERIFY(t->itemFor({"node", "n0001"}));
    QVERIFY(t->itemFor({"gpu", "n0001/gpu7"}));
    QVERIFY(t->itemFor({"cooling_unit", "crah-01"}));
    QCOMPARE(w_->properties()->value("GPUs"), QString("640"));
}

void TstApp::selectingARackInTheTreeShowsItsProperties() {
    QTreeWidgetItem* it = w_->tree()->itemFor({"rack", "r02-03"});
    QVERIFY(it);
    w_->tree()->setCurrentItem(it);  // as a user click does
    QCOMPARE(w_->properties()->value("id"), QString("r02-03"));
    QCOMPARE(w_->properties()->value("kind"), QString("rack"));
    QCOMPARE(w_->properties()->value("nameplate power"), QString("40.8 kW"));
    QCOMPARE(w_->properties()->value("facing (cold air in)"), QString("south"));
}

void TstApp::clickingARackOnTheFloorPlanSelectsItInTheTree() {
    FloorPlanView* plan = w_->floorPlan();
    const QPointF at = plan->widgetPosOf({"rack", "r03-05"});
    QVERIFY(!at.isNull());
    QTest::mouseClick(plan, Qt::LeftButton, {}, at.toPoint());
    QTreeWidgetItem* cur = w_->tree()->currentItem();
    QVERIFY(cur);
    QVERIFY(cur->text(0).startsWith("r03-05"));
    QCOMPARE(w_->properties()->value("id"), QString("r03-05"));
}

void TstApp::anInvalidFileListsItsProblemsAndKeepsTheScenario() {
    QVERIFY(!w_->openScenario(QStringLiteral(CT_TEST_DATA_DIR) + "/invalid/several_problems.json"));
    auto* dlg = qobject_cast<ProblemsDialog*>(w_->problemsDialog());
    QVERIFY(dlg);
    QVERIFY(dlg->isVisible());
    QCOMPARE(dlg->problemCount(), 2);
    auto* list = dlg->findChild<QTreeWidget*>("problemsList");
    QVERIFY(list);
    QStringList where;
    for (int i = 0; i < list->topLevelItemCount(); ++i) where << list->topLevelItem(i)->text(1);
    QVERIFY(where.contains("/halls/0/rows/0/racks/0/facing"));
    QVERIFY(where.contains("/halls/0/rows/0/racks/0/nodes/0/u_position"));
    dlg->reject();
    QCOMPARE(w_->document().scenario().id, std::string("demo"));  // the open scenario stays
}

void TstApp::aSyntaxErrorNamesTheLine() {
    QVERIFY(!w_->openScenario(QStringLiteral(CT_TEST_DATA_DIR) + "/invalid/syntax_error.json"));
    auto* dlg = w_->problemsDialog();
    QVERIFY(dlg);
    auto* label = dlg->findChild<QLabel*>("problemsSummary");
    QVERIFY(label);
    QVERIFY(label->text().contains("syntax_error.json:5:"));
    dlg->reject();
}

void TstApp::screenshotIsNotBlank() {
    const QImage img = w_->grab().toImage();
    QVERIFY(!img.isNull());
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 5)
        for (int x = 0; x < img.width(); x += 5) colours.insert(img.pixel(x, y));
    QVERIFY(colours.size() > 20);
    img.save(QDir::temp().filePath("clustertwin-tst_app.png"));
}

QTEST_MAIN(TstApp)
#include "tst_app.moc"
