#pragma once
// Edit > Add rack… and Add row… (issues 18, 40): one dialog — hall, row (or a new row), how many racks, rack model,
// servers and how many — with a live preview of where the racks go, how they are powered and what redundancy they
// have (model::planRacks), drawn on a small plan of the hall. Add row starts with a new row as long as the last.
#include <clustertwin/model/capacity.hpp>
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace ct::app {

class AddRackDialog : public QDialog {
    Q_OBJECT
public:
    /// `row_id` preselects a row ("" = a new row in `hall_id`).
    AddRackDialog(const model::Scenario& s, const model::Catalog& c, const std::string& hall_id, const std::string& row_id,
                  QWidget* parent);
    std::string rackModel() const;
    std::string serverModel() const;  ///< "" = empty rack
    int nodes() const;
    int racks() const;
    /// The racks' plans, in order (plan() is the first's).
    const model::RowPlan& plans() const { return plans_; }
    const model::RackPlan& plan() const { return plan_; }
    /// The preview line (also the accessible description of the plan picture), for tests.
    QString previewText() const;

private:
    void fillRows();
    void replan();
    const model::Scenario& s_;
    const model::Catalog& c_;
    QComboBox *hall_, *row_, *rack_, *server_;
    QSpinBox* count_;
    QSpinBox* racks_;
    QLabel* preview_;
    QWidget* picture_;
    QDialogButtonBox* buttons_;
    model::RackPlan plan_;
    model::RowPlan plans_;
};

}  // namespace ct::app
