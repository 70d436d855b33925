#include "whatif_dialog.hpp"
#include "qstr.hpp"

#include <clustertwin/model/time.hpp>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ct::app {

namespace {}  // namespace

std::pair<std::string, std::string> whatIfKinds(const QString& k) {
    if (k == "cooling_unit") return {"cooling_unit_fail", "cooling_unit_restore"};
    if (k == "cdu") return {"cdu_fail", "cdu_restore"};
    if (k == "utility_feed" || k == "ups" || k == "pdu" || k == "rack_pdu" || k == "transformer") return {"feed_fail", "feed_restore"};
    if (k == "node") return {"node_fail", "node_restore"};
    if (k == "gpu") return {"gpu_fail", "gpu_restore"};
    if (k == "water_loop") return {"loop_fail", "loop_restore"};
    return {};
}

WhatIfDialog::WhatIfDialog(const model::Scenario& s, const QList<EntityRef>& preset, QWidget* parent) : QDialog(parent), s_(s) {
    setObjectName("whatIfDialog");
    setWindowTitle(tr("What-if"));
    auto* l = new QVBoxLayout(this);
    l->addWidget(new QLabel(tr("What fails, when and for how long. The same scenario runs without it as the baseline; the "
                               "Compare tab then shows both side by side."),
                            this));
    table_ = new QTableWidget(0, 3, this);
    table_->setHorizontalHeaderLabels({tr("Fails"), tr("At"), tr("For (empty: to the end)")});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    l->addWidget(table_, 1);
    // Everything that can fail in a what-if, by kind.
    for (const auto& f : s.power.feeds) candidates_.push_back({"utility_feed", qs(f.id)});
    for (const auto& t : s.power.transformers) candidates_.push_back({"transformer", qs(t.id)});
    for (const auto& u : s.power.ups) candidates_.push_back({"ups", qs(u.id)});
    for (const auto& p : s.power.pdus) candidates_.push_back({"pdu", qs(p.id)});
    for (const auto& lp : s.plant.loops) candidates_.push_back({"water_loop", qs(lp.id)});
    for (const auto& h : s.halls) {
        for (const auto& u : h.cooling_units) candidates_.push_back({"cooling_unit", qs(u.id)});
        for (const auto& c : h.cdus) candidates_.push_back({"cdu", qs(c.id)});
    }
    auto* row = new QHBoxLayout;
    add_ = new QComboBox(this);
    add_->setObjectName("whatIfCandidate");
    for (const auto& c : candidates_) add_->addItem(QString("%1 (%2)").arg(c.id, c.kind), c.id);
    auto* add = new QPushButton(tr("Add failure"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    row->addWidget(add_, 1);
    row->addWidget(add);
    row->addWidget(remove);
    l->addLayout(row);
    connect(add, &QPushButton::clicked, this, [this] {
        const int i = add_->currentIndex();
        if (i >= 0) addFailure(candidates_[static_cast<std::size_t>(i)]);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (table_->currentRow() >= 0) table_->removeRow(table_->currentRow());
    });
    auto* form = new QFormLayout;
    duration_ = new QLineEdit("30min", this);
    duration_->setObjectName("whatIfDuration");
    form->addRow(tr("Simulate for"), duration_);
    l->addLayout(form);
    QStringList own;
    for (const auto& e : s.events) own << tr("%1 %2 at %3").arg(qs(e.kind), qs(e.target), qs(model::formatDuration(e.time_s)));
    included_ = new QLabel(own.isEmpty() ? tr("The scenario has no events of its own.")
                                         : tr("Both runs include the scenario's events: %1").arg(own.join(" · ")),
                           this);
    included_->setWordWrap(true);
    l->addWidget(included_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run both"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    l->addWidget(buttons);
    for (const auto& p : preset)
        if (!whatIfKinds(p.kind).first.empty()) addFailure(p);
    resize(560, 420);
}

void WhatIfDialog::addFailure(const EntityRef& ref, const QString& at, const QString& for_) {
    const int r = table_->rowCount();
    table_->insertRow(r);
    auto* who = new QTableWidgetItem(QString("%1 (%2)").arg(ref.id, ref.kind));
    who->setData(Qt::UserRole, ref.id);
    who->setData(Qt::UserRole + 1, ref.kind);
    who->setFlags(who->flags() & ~Qt::ItemIsEditable);
    table_->setItem(r, 0, who);
    table_->setItem(r, 1, new QTableWidgetItem(at));
    table_->setItem(r, 2, new QTableWidgetItem(for_));
}

std::vector<model::Event> WhatIfDialog::events() const {
    std::vector<model::Event> out;
    for (int r = 0; r < table_->rowCount(); ++r) {
        const QString id = table_->item(r, 0)->data(Qt::UserRole).toString();
        const auto [fail, restore] = whatIfKinds(table_->item(r, 0)->data(Qt::UserRole + 1).toString());
        if (fail.empty()) continue;
        model::Event e;
        e.kind = fail;
        e.target = id.toStdString();
        e.time_s = model::parseDurationS(table_->item(r, 1)->text().trimmed().toStdString());
        out.push_back(e);
        const QString len = table_->item(r, 2) ? table_->item(r, 2)->text().trimmed() : QString();
        if (!len.isEmpty()) {
            model::Event back = e;
            back.kind = restore;
            back.time_s = e.time_s + model::parseDurationS(len.toStdString());
            out.push_back(back);
        }
    }
    return out;
}

double WhatIfDialog::durationS() const { return model::parseDurationS(duration_->text().trimmed().toStdString()); }

}  // namespace ct::app
