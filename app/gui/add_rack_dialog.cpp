#include "add_rack_dialog.hpp"

#include <clustertwin/model/geometry.hpp>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace ct::app {

namespace {

/// The hall from above: what stands in it in grey, the planned rack in the accent colour with its front marked.
class PlanPicture : public QWidget {
public:
    PlanPicture(const model::Scenario& s, const model::Catalog& c, const model::RackPlan& p, const model::RowPlan& all, QWidget* parent)
        : QWidget(parent), s_(s), c_(c), p_(p), all_(all) {
        setMinimumSize(320, 200);
        setObjectName("addRackPreviewPlan");
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter g(this);
        g.setRenderHint(QPainter::Antialiasing);
        g.fillRect(rect(), palette().base());
        const model::Hall* h = nullptr;
        for (const auto& x : s_.halls)
            if (x.id == p_.hall_id) h = &x;
        if (!h || h->width_m <= 0 || h->depth_m <= 0) return;
        const double k = std::min((width() - 12) / h->width_m, (height() - 12) / h->depth_m);
        const double ox = (width() - k * h->width_m) / 2, oy = (height() + k * h->depth_m) / 2;  // y up
        auto box = [&](const model::Box2& b) { return QRectF(ox + k * b.x0, oy - k * b.y1, k * b.width(), k * b.depth()); };
        g.setPen(QPen(palette().text().color(), 1.5));
        g.drawRect(box({0, 0, h->width_m, h->depth_m}));
        g.setPen(Qt::NoPen);
        g.setBrush(QColor(150, 150, 150));
        for (const auto& row : h->rows)
            for (const auto& r : row.racks)
                if (const auto* m = c_.rack(r.model)) g.drawRect(box(model::footprint(r.position_m, m->width_m, m->depth_m, r.facing)));
        g.setBrush(QColor(90, 140, 200));
        for (const auto& u : h->cooling_units)
            if (const auto* m = c_.coolingUnit(u.model)) g.drawRect(box(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing)));
        if (!p_.problem.empty()) return;
        const auto* rm = c_.rack(rack_);
        if (!rm) return;
        for (std::size_t i = 1; i < all_.racks.size(); ++i) {  // the others of a row, lighter
            g.setBrush(QColor(240, 170, 90));
            g.drawRect(box(model::footprint(all_.racks[i].position_m, rm->width_m, rm->depth_m, all_.racks[i].facing)));
        }
        const model::Box2 b = model::footprint(p_.position_m, rm->width_m, rm->depth_m, p_.facing);
        g.setBrush(QColor(230, 120, 20));
        g.drawRect(box(b));
        // The front edge (the cold-air intake) in a darker line.
        g.setPen(QPen(QColor(120, 50, 0), 2));
        const QRectF r = box(b);
        switch (p_.facing) {
            case model::Facing::North:
                g.drawLine(r.topLeft(), r.topRight());
                break;
            case model::Facing::South:
                g.drawLine(r.bottomLeft(), r.bottomRight());
                break;
            case model::Facing::East:
                g.drawLine(r.topRight(), r.bottomRight());
                break;
            case model::Facing::West:
                g.drawLine(r.topLeft(), r.bottomLeft());
                break;
        }
    }

public:
    std::string rack_;

private:
    const model::Scenario& s_;
    const model::Catalog& c_;
    const model::RackPlan& p_;
    const model::RowPlan& all_;
};

QString kw(double w) { return QString::number(w / 1000.0, 'f', 1) + " kW"; }

}  // namespace

AddRackDialog::AddRackDialog(const model::Scenario& s, const model::Catalog& c, const std::string& hall_id, const std::string& row_id,
                             QWidget* parent)
    : QDialog(parent), s_(s), c_(c) {
    setWindowTitle(tr("Add rack"));
    setObjectName("addRackDialog");
    hall_ = new QComboBox(this);
    row_ = new QComboBox(this);
    rack_ = new QComboBox(this);
    server_ = new QComboBox(this);
    count_ = new QSpinBox(this);
    hall_->setObjectName("addRackHall");
    row_->setObjectName("addRackRow");
    rack_->setObjectName("addRackModel");
    server_->setObjectName("addRackServer");
    count_->setObjectName("addRackCount");
    racks_ = new QSpinBox(this);
    racks_->setObjectName("addRackRacks");
    racks_->setRange(1, 40);
    for (const auto& h : s.halls) hall_->addItem(QString::fromStdString(h.name.empty() ? h.id : h.name), QString::fromStdString(h.id));
    hall_->setCurrentIndex(std::max(0, hall_->findData(QString::fromStdString(hall_id))));
    for (const auto& r : c.racks) rack_->addItem(QString::fromStdString(r.name), QString::fromStdString(r.id));
    server_->addItem(tr("(empty rack)"), QString());
    for (const auto& m : c.servers) server_->addItem(QString::fromStdString(m.name), QString::fromStdString(m.id));
    count_->setRange(0, 48);
    // Start like the row's racks: its model, its servers and their count.
    std::string like_rack = "rack-48u-600x1200", like_server = "dgx-h100";
    int like_nodes = 4;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            if (row.id == row_id && !row.racks.empty()) {
                like_rack = row.racks.back().model;
                like_nodes = static_cast<int>(row.racks.back().nodes.size());
                like_server = like_nodes > 0 ? row.racks.back().nodes.front().model : "";
            }
    rack_->setCurrentIndex(std::max(0, rack_->findData(QString::fromStdString(like_rack))));
    server_->setCurrentIndex(std::max(0, server_->findData(QString::fromStdString(like_server))));
    count_->setValue(like_nodes);
    fillRows();
    row_->setCurrentIndex(std::max(0, row_->findData(QString::fromStdString(row_id))));
    // A new row is as long as the hall's last one (Add row used to add one rack); a row gets one more rack.
    if (row_id.empty())
        for (const auto& h : s.halls)
            if (h.id == hall_id && !h.rows.empty()) racks_->setValue(std::max<int>(1, static_cast<int>(h.rows.back().racks.size())));
    setWindowTitle(row_id.empty() ? tr("Add row") : tr("Add rack"));

    preview_ = new QLabel(this);
    preview_->setObjectName("addRackPreview");
    preview_->setWordWrap(true);
    preview_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    // Where, how it is powered, and a warning: room for all of it (a wrapped label's height is not negotiated).
    preview_->setMinimumHeight(6 * preview_->fontMetrics().lineSpacing());
    setMinimumWidth(480);
    auto* picture = new PlanPicture(s, c, plan_, plans_, this);
    picture_ = picture;
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Add rack"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* form = new QFormLayout;
    form->addRow(tr("Hall:"), hall_);
    form->addRow(tr("Row:"), row_);
    form->addRow(tr("Racks:"), racks_);
    form->addRow(tr("Rack model:"), rack_);
    form->addRow(tr("Servers:"), server_);
    form->addRow(tr("How many:"), count_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(picture_, 1);
    layout->addWidget(preview_);
    layout->addWidget(buttons_);

    connect(hall_, &QComboBox::currentIndexChanged, this, [this] {
        fillRows();
        replan();
    });
    for (QComboBox* box : {row_, rack_, server_}) connect(box, &QComboBox::currentIndexChanged, this, [this] { replan(); });
    for (QSpinBox* box : {count_, racks_}) connect(box, &QSpinBox::valueChanged, this, [this] { replan(); });
    replan();
}

void AddRackDialog::fillRows() {
    const QSignalBlocker block(row_);
    row_->clear();
    const std::string hall = hall_->currentData().toString().toStdString();
    for (const auto& h : s_.halls)
        if (h.id == hall)
            for (const auto& r : h.rows)
                row_->addItem(QString::fromStdString(r.name.empty() ? r.id : r.name + " (" + r.id + ")"), QString::fromStdString(r.id));
    row_->addItem(tr("(a new row)"), QString());
}

std::string AddRackDialog::rackModel() const { return rack_->currentData().toString().toStdString(); }
std::string AddRackDialog::serverModel() const { return count_->value() > 0 ? server_->currentData().toString().toStdString() : ""; }
int AddRackDialog::nodes() const { return serverModel().empty() ? 0 : count_->value(); }
int AddRackDialog::racks() const { return racks_->value(); }

void AddRackDialog::replan() {
    count_->setEnabled(!server_->currentData().toString().isEmpty());
    plans_ = model::planRacks(s_, c_, hall_->currentData().toString().toStdString(), row_->currentData().toString().toStdString(), racks(),
                              rackModel(), serverModel(), nodes());
    plan_ = !plans_.racks.empty() ? plans_.racks.front() : model::RackPlan{};
    if (!plans_.problem.empty()) plan_.problem = plans_.problem;
    buttons_->button(QDialogButtonBox::Ok)->setText(racks() == 1 ? tr("Add rack") : tr("Add %1 racks").arg(racks()));
    static_cast<PlanPicture*>(picture_)->rack_ = rackModel();
    preview_->setText(previewText());
    preview_->setStyleSheet(!plan_.problem.empty()   ? QStringLiteral("color: #b00020")
                            : !plan_.warning.empty() ? QStringLiteral("color: #a05a00")
                                                     : QString());
    picture_->setAccessibleDescription(previewText());
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(plan_.problem.empty());
    picture_->update();
}

QString AddRackDialog::previewText() const {
    if (!plan_.problem.empty()) return tr("Cannot add: %1").arg(QString::fromStdString(plan_.problem));
    const QString where = plan_.row_id.empty() ? tr("in a new row (%1)").arg(QString::fromStdString(plan_.new_row_name))
                                               : tr("in %1").arg(QString::fromStdString(plan_.row_id));
    const QString at = tr("at (%1, %2) m facing %3")
                           .arg(plan_.position_m.x_m, 0, 'f', 2)
                           .arg(plan_.position_m.y_m, 0, 'f', 2)
                           .arg(QString::fromStdString(std::string(model::toString(plan_.facing))));
    QString power = tr("no servers");
    if (nodes() > 0)
        power = tr("%1%2 on %3 × 3-phase %4 A PDU per side (A from %5, B from %6)")
                    .arg(racks() > 1 ? tr("each ") : QString())
                    .arg(kw(plan_.load_w))
                    .arg(plan_.pdus_per_side)
                    .arg(plan_.breaker_a, 0, 'f', 0)
                    .arg(QString::fromStdString(plan_.upstream_a), QString::fromStdString(plan_.upstream_b));
    const QString more = racks() > 1 ? tr(", and %1 more beside it").arg(racks() - 1) : QString();
    const QString warning =
        plans_.place.warning.empty() ? QString() : tr("\nWarning: %1").arg(QString::fromStdString(plans_.place.warning));
    const QString redundancy =
        plans_.redundancy.empty() ? QString() : tr("\nRedundancy: %1").arg(QString::fromStdString(plans_.redundancy));
    return where + " " + at + more + "; " + power + warning + redundancy;
}

}  // namespace ct::app
