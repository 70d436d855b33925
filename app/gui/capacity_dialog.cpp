#include "capacity_dialog.hpp"
#include "qstr.hpp"
#include "scenario_document.hpp"
#include "table_util.hpp"

#include <clustertwin/model/capacity.hpp>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace ct::app {

namespace {

QString amount(double v, const std::string& unit) {
    return unit == "W" ? QObject::tr("%1 kW").arg(v / 1e3, 0, 'f', 1) : QObject::tr("%1 %2").arg(v, 0, 'f', 0).arg(qs(unit));
}

}  // namespace

CapacityDialog::CapacityDialog(const ScenarioDocument& doc, QWidget* parent) : QDialog(parent), doc_(doc) {
    setObjectName("capacityDialog");
    setWindowTitle(tr("Capacity"));
    auto* l = new QVBoxLayout(this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    l->addWidget(summary_);
    auto* split = new QSplitter(Qt::Vertical, this);
    table_ = makeListTable(split, {tr("entity"), tr("kind"), tr("what"), tr("capacity"), tr("used"), tr("left")});
    table_->setObjectName("capacityTable");
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* bottom = new QWidget(split);
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    auto* form = new QHBoxLayout;
    count_ = new QSpinBox(bottom);
    count_->setRange(1, 200);
    count_->setValue(1);
    rack_ = new QComboBox(bottom);
    server_ = new QComboBox(bottom);
    server_->setObjectName("capacityServer");
    server_->addItem(tr("(empty)"), QString());
    for (const auto& m : doc_.catalog().racks) rack_->addItem(qs(m.name.empty() ? m.id : m.name), qs(m.id));
    for (const auto& m : doc_.catalog().servers)
        if (m.form_factor == "node") server_->addItem(qs(m.name.empty() ? m.id : m.name), qs(m.id));
    servers_ = new QSpinBox(bottom);
    servers_->setRange(0, 64);
    servers_->setValue(4);
    auto* find = new QPushButton(tr("Find places"), bottom);
    find->setObjectName("capacityFind");
    form->addWidget(new QLabel(tr("Where can"), bottom));
    form->addWidget(count_);
    form->addWidget(new QLabel(tr("racks of"), bottom));
    form->addWidget(rack_, 1);
    form->addWidget(new QLabel(tr("with"), bottom));
    form->addWidget(servers_);
    form->addWidget(new QLabel(tr("×"), bottom));
    form->addWidget(server_, 1);
    form->addWidget(find);
    bl->addLayout(form);
    places_ = new QListWidget(bottom);
    places_->setObjectName("capacityPlaces");
    places_->setWordWrap(true);
    bl->addWidget(places_, 1);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    l->addWidget(split, 1);
    connect(find, &QPushButton::clicked, this, &CapacityDialog::findPlaces);
    connect(table_, &QTableWidget::cellClicked, this,
            [this](int row, int) { emit entityPicked(table_->item(row, 1)->text(), table_->item(row, 0)->text()); });
    connect(places_, &QListWidget::itemClicked, this, [this](QListWidgetItem* it) {
        const QString row = it->data(Qt::UserRole).toString();
        if (!row.isEmpty()) emit entityPicked("row", row);
    });
    resize(900, 640);
    // The open scenario's headroom, kept current as it is edited or another is opened.
    connect(&doc_, &ScenarioDocument::edited, this, &CapacityDialog::refresh);
    connect(&doc_, &ScenarioDocument::changed, this, [this] {
        places_->clear();
        refresh();
    });
    refresh();
}

void CapacityDialog::refresh() {
    const auto all = model::capacityHeadroom(doc_.scenario(), doc_.catalog());
    table_->setSortingEnabled(false);
    table_->setRowCount(static_cast<int>(all.size()));
    int over = 0;
    const model::Headroom* tightest = nullptr;
    for (int r = 0; r < static_cast<int>(all.size()); ++r) {
        const model::Headroom& h = all[static_cast<std::size_t>(r)];
        const QString cells[] = {
            qs(h.id), qs(h.kind), qs(h.what), amount(h.capacity, h.unit), amount(h.used, h.unit), amount(h.left(), h.unit)};
        for (int c = 0; c < 6; ++c) {
            auto* it = new QTableWidgetItem(cells[c]);
            it->setToolTip(qs(h.basis));
            if (c >= 3) it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == 5 && h.left() < 0) it->setForeground(QColor(200, 30, 30));
            table_->setItem(r, c, it);
        }
        over += h.left() < 0 ? 1 : 0;
        if (h.unit == "W" && h.kind != "rack" && h.kind != "row" && (!tightest || h.left() < tightest->left())) tightest = &h;
    }
    summary_->setText(tr("At nameplate load, power with the other side of each pair failed and cooling with the largest unit out. "
                         "%1 over capacity. Tightest: %2 (%3 left).")
                          .arg(over)
                          .arg(tightest ? qs(tightest->kind + " " + tightest->id) : tr("none"))
                          .arg(tightest ? amount(tightest->left(), tightest->unit) : QString("–")));
}

void CapacityDialog::findPlaces() {
    places_->clear();
    const std::string server = server_->currentData().toString().toStdString();
    model::PlacementAnswer a;
    try {
        a = model::placeRacks(doc_.scenario(), doc_.catalog(), count_->value(), rack_->currentData().toString().toStdString(), server,
                              server.empty() ? 0 : servers_->value());
    } catch (const std::exception& e) {
        places_->addItem(tr("Cannot look: %1").arg(qs(e.what())));
        return;
    }
    if (a.fits.empty()) places_->addItem(tr("They fit nowhere."));
    for (const auto& p : a.fits) {
        auto* it =
            new QListWidgetItem(tr("Fits in %1 from (%2, %3) m, on floor PDUs %4 and %5: leaves %6 of power (%7, the other side failed) "
                                   "and %8 of air cooling at N+1%9")
                                    .arg(qs(p.hall_id + "/" + (p.row_id.empty() ? "a new row (" + p.new_row_name + ")" : p.row_id)))
                                    .arg(p.positions.front().x_m, 0, 'f', 2)
                                    .arg(p.positions.front().y_m, 0, 'f', 2)
                                    .arg(qs(p.floor_pdu_a), qs(p.floor_pdu_b), amount(p.power_left_w, "W"), qs(p.tightest),
                                         amount(p.cooling_left_w, "W"), p.warning.empty() ? QString() : tr("; but %1").arg(qs(p.warning))),
                                places_);
        it->setData(Qt::UserRole, qs(p.row_id));
        it->setForeground(QColor(20, 120, 40));
    }
    for (const auto& r : a.refused) places_->addItem(tr("Not in %1").arg(qs(r)));
}

}  // namespace ct::app
