#include "nccl_compare_dialog.hpp"
#include "qstr.hpp"
#include "scenario_document.hpp"
#include "table_util.hpp"

#include <clustertwin/importers/nccl_tests.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/nccl_sweep.hpp>

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPen>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <optional>

namespace ct::app {

namespace net = ct::sim::net;

struct NcclCompareDialog::Measured {
    QString path;
    importers::NcclTestsRun run;
};

struct NcclCompareDialog::Result {
    std::shared_ptr<const Measured> measured;
    int ranks = 0, nodes = 0;
    QString placement;
    QString algorithm;  ///< forced (net::algoFromString), empty: the tuner's
    std::vector<net::CollectiveResult> twin;
    QString error;         ///< why there is no answer
    QString gpu_mismatch;  ///< the file ran on other GPUs than the scenario's servers have (empty when alike)
};

namespace {

/// "8 B", "64 KiB", "1 GiB": the sizes nccl-tests sweeps are powers of two.
QString bytesLabel(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(b, 0, 'g', 4).arg(units[u]);
}

/// The ops the twin models, from what the file says; empty when it models none of it.
std::optional<net::CollectiveOp> modelledOp(const std::string& op) {
    for (const char* o : {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce"})
        if (op == o) return net::collectiveFromString(op);
    return std::nullopt;
}

/// The GPU family a name gives ("A100", "H100", "H200", "B200", "GB200", "L40", "T4"), upper case; empty if none.
QString gpuFamily(const QString& name) {
    static const QRegularExpression family(QStringLiteral("\\b(GB\\d{3}|[ABHLT]\\d{1,3})"));
    const auto m = family.match(name.toUpper());
    return m.hasMatch() ? m.captured(1) : QString();
}

/// Names the mismatch when the file's devices are of another GPU family than the catalog model of the first
/// ranked node's servers.
QString gpuMismatch(const std::vector<std::string>& devices, const model::Scenario& s, const model::Catalog& c,
                    const std::string& node_id) {
    if (devices.empty()) return {};
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks)
                for (const auto& n : rack.nodes) {
                    if (n.id != node_id) continue;
                    const auto* sm = c.server(n.model);
                    const auto* g = sm ? c.gpu(sm->gpu_model) : nullptr;
                    if (!g) return {};
                    const QString file = gpuFamily(qs(devices.front())), twin = gpuFamily(qs(g->name + " " + g->id));
                    if (file.isEmpty() || twin.isEmpty() || file == twin) return {};
                    return QObject::tr("the file ran on %1, the scenario's servers have %2: the comparison is across GPUs")
                        .arg(qs(devices.front()), qs(g->name.empty() ? g->id : g->name));
                }
    return {};
}

QLineSeries* lineOf(const QString& name, const std::vector<std::pair<double, double>>& points, const QColor& colour, Qt::PenStyle style) {
    auto* s = new QLineSeries;
    s->setName(name);
    for (const auto& [x, y] : points) s->append(x, y);
    QPen pen(colour);
    pen.setWidthF(2.0);
    pen.setStyle(style);
    s->setPen(pen);
    s->setPointsVisible(true);
    return s;
}

}  // namespace

NcclCompareDialog::NcclCompareDialog(const ScenarioDocument& doc, QWidget* parent) : QDialog(parent), doc_(doc) {
    setObjectName("ncclCompareDialog");
    setWindowTitle(tr("Compare with nccl-tests output"));
    resize(900, 700);
    auto* l = new QVBoxLayout(this);
    auto* form = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open nccl-tests output…"), this);
    connect(open, &QPushButton::clicked, this, &NcclCompareDialog::pickFile);
    file_ = new QLabel(tr("(no file)"), this);
    ranks_ = new QSpinBox(this);
    ranks_->setObjectName("ncclRanks");
    ranks_->setRange(1, 1 << 20);
    ranks_->setValue(8);
    placement_ = new QComboBox(this);
    placement_->setObjectName("ncclPlacement");
    placement_->addItem(tr("packed (node by node)"), "packed");
    placement_->addItem(tr("spread (one per node in turn)"), "spread");
    // What the measured run set NCCL_ALGO to, if anything: CollNet runs only when asked (NCCL_COLLNET_ENABLE).
    algorithm_ = new QComboBox(this);
    algorithm_->setObjectName("ncclAlgorithm");
    algorithm_->setToolTip(
        tr("The algorithm the twin runs: as NCCL's tuner picks by size and scale, or the one the measured "
           "run forced with NCCL_ALGO (CollNet needs switches that reduce in the network, SHARP)"));
    algorithm_->addItem(tr("algorithm as NCCL's tuner picks"), QString());
    algorithm_->addItem(tr("ring"), "ring");
    algorithm_->addItem(tr("tree"), "tree");
    algorithm_->addItem(tr("NVLS"), "nvls");
    algorithm_->addItem(tr("NVLS-tree"), "nvlstree");
    algorithm_->addItem(tr("CollNet (SHARP)"), "collnet");
    auto* run = new QPushButton(tr("Compare"), this);
    connect(run, &QPushButton::clicked, this, &NcclCompareDialog::recompute);
    form->addWidget(open);
    form->addWidget(file_, 1);
    form->addWidget(new QLabel(tr("GPUs:"), this));
    form->addWidget(ranks_);
    form->addWidget(placement_);
    form->addWidget(algorithm_);
    form->addWidget(run);
    l->addLayout(form);
    summary_ = new QLabel(tr("Open the text an nccl-tests program printed (all_reduce_perf, all_gather_perf, …) to set it against "
                             "the twin's collective on this scenario's fabric."),
                          this);
    summary_->setObjectName("ncclSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->addWidget(summary_);
    auto* split = new QSplitter(Qt::Vertical, this);
    chart_ = new QChartView(new QChart, split);
    chart_->setObjectName("ncclChart");
    chart_->setRenderHint(QPainter::Antialiasing);
    chart_->setMinimumHeight(320);
    table_ = makeListTable(split, {tr("size"), tr("measured GB/s"), tr("twin GB/s"), tr("twin / measured"), tr("twin ran")});
    table_->setObjectName("ncclTable");
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    l->addWidget(split, 1);
}

NcclCompareDialog::~NcclCompareDialog() {
    if (worker_) {
        worker_->requestInterruption();
        worker_->wait();
    }
}

QString NcclCompareDialog::summary() const { return summary_->text(); }

void NcclCompareDialog::pickFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("nccl-tests output"), {}, tr("Text (*.txt *.log *.out);;All files (*)"));
    if (!path.isEmpty()) load(path);
}

bool NcclCompareDialog::load(const QString& path) {
    auto m = std::make_shared<Measured>();
    m->path = path;
    std::ifstream in(path.toStdString());
    if (!in) {
        summary_->setText(tr("Cannot compare: %1 cannot be read").arg(path));
        return false;
    }
    try {
        m->run = importers::parseNcclTests(in, path.toStdString());
    } catch (const model::ParseError& e) {
        summary_->setText(tr("Cannot compare: %1").arg(qs(e.what())));
        return false;
    }
    measured_ = std::move(m);
    file_->setText(path);
    if (measured_->run.ranks > 0) ranks_->setValue(measured_->run.ranks);
    recompute();
    return true;
}

void NcclCompareDialog::recompute() {
    if (!measured_) return;
    if (busy_) {
        again_ = true;
        return;
    }
    busy_ = true;
    summary_->setText(tr("Running the twin's %1 over %2 sizes…").arg(qs(measured_->run.op)).arg(measured_->run.rows.size()));
    auto res = std::make_shared<Result>();
    res->measured = measured_;
    res->ranks = ranks_->value();
    res->placement = placement_->currentData().toString();
    res->algorithm = algorithm_->currentData().toString();
    // The worker has its own copies: the document may be edited while it runs.
    worker_ = QThread::create([res, scenario = doc_.scenario(), catalog = doc_.catalog()] {
        try {
            const auto op = modelledOp(res->measured->run.op);
            if (!op)
                throw sim::SimError(res->measured->run.op.empty()
                                        ? "the file does not say which nccl-tests program printed it"
                                        : res->measured->run.op + "_perf is not one of the collectives the twin models");
            const net::ScenarioFabric f = net::buildScenarioFabric(scenario, catalog);
            const net::PlacedRanks r = net::placeRanks(f, res->ranks, res->placement == "spread");
            res->gpu_mismatch =
                gpuMismatch(res->measured->run.devices, scenario, catalog, f.node_ids[static_cast<std::size_t>(r.node_of[0])]);
            std::vector<int> nodes = r.node_of;
            std::sort(nodes.begin(), nodes.end());
            res->nodes = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
            std::vector<double> sizes;
            for (const auto& row : res->measured->run.rows) sizes.push_back(row.size_B);
            net::NcclChoice how;
            if (!res->algorithm.isEmpty()) how.algo = net::algoFromString(res->algorithm.toStdString());
            res->twin =
                net::ncclSweep(f, *op, r, how, sizes, [](std::size_t) { return !QThread::currentThread()->isInterruptionRequested(); });
        } catch (const std::exception& e) {
            res->error = qs(e.what());
        }
    });
    connect(worker_, &QThread::finished, this, [this, res] {
        worker_->deleteLater();
        worker_ = nullptr;
        busy_ = false;
        display(*res);
        emit computed();
        if (again_) {
            again_ = false;
            recompute();
        }
    });
    worker_->start();
}

void NcclCompareDialog::replaceChart(QChart* chart) {
    QChart* old = chart_->chart();
    chart_->setChart(chart);
    delete old;  // QChartView releases the chart it showed without deleting it
}

void NcclCompareDialog::display(const Result& r) {
    const auto& m = r.measured->run;
    auto* chart = new QChart;
    chart->setTitle(tr("%1, %2 GPUs: bus bandwidth by message size").arg(qs(m.op)).arg(r.ranks));
    table_->setRowCount(0);
    if (!r.error.isEmpty()) {
        summary_->setText(tr("Cannot compare: %1").arg(r.error));
        replaceChart(chart);
        return;
    }
    std::vector<std::pair<double, double>> meas, meas_ip, twin;
    double lo = 1e300, hi = 0, top = 0;
    std::vector<double> big_ratios;  // 256 MiB and up, where the issue and published runs compare
    for (std::size_t i = 0; i < r.twin.size() && i < m.rows.size(); ++i) {
        const auto& row = m.rows[i];
        const auto& t = r.twin[i];
        const double x = std::log2(std::max(1.0, row.size_B)), bus = t.busbw_Bps / 1e9;
        meas.emplace_back(x, row.busbw_GBps);
        if (row.ip_time_us > 0) meas_ip.emplace_back(x, row.ip_busbw_GBps);  // the in-place half was printed
        twin.emplace_back(x, bus);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        top = std::max({top, bus, row.busbw_GBps, row.ip_busbw_GBps});
        // Twin / measured bus bandwidth, from the times: the text prints them with more digits than a small
        // size's GB/s (for one size and op the bandwidths are inversely proportional to the time).
        const double ratio = row.time_us > 0 && t.time_s > 0 ? row.time_us / (t.time_s * 1e6) : std::nan("");
        if (row.size_B >= 256.0 * (1 << 20) && std::isfinite(ratio)) big_ratios.push_back(ratio);
        const int at = table_->rowCount();
        table_->insertRow(at);
        const QStringList cells{bytesLabel(row.size_B), QString::number(row.busbw_GBps, 'f', 2), QString::number(bus, 'f', 2),
                                std::isfinite(ratio) ? QString::number(ratio, 'f', 3) : tr("–"),
                                tr("%1/%2, %3 ch").arg(qs(t.algorithm), qs(t.protocol.empty() ? "-" : t.protocol)).arg(t.channels)};
        for (int c = 0; c < cells.size(); ++c) table_->setItem(at, c, new QTableWidgetItem(cells[c]));
    }
    chart->addSeries(lineOf(tr("measured (out of place)"), meas, QColor(30, 90, 200), Qt::SolidLine));
    if (!meas_ip.empty()) chart->addSeries(lineOf(tr("measured (in place)"), meas_ip, QColor(120, 160, 230), Qt::DotLine));
    chart->addSeries(lineOf(tr("twin"), twin, QColor(220, 90, 20), Qt::DashLine));
    // Size on a log₂ scale, labelled every fourth power of two (16 B, 256 B, 4 KiB, …), or every one over a
    // range of eight or fewer (512 MiB to 8 GiB).
    auto* x = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    x->setRange(std::floor(lo), std::ceil(hi));
    const int first = static_cast<int>(std::ceil(lo));
    const bool every = hi - lo <= 8;
    for (int p = first; p <= static_cast<int>(hi); ++p)
        if (every || p % 4 == 0 || (p == first && p % 4 <= 2)) x->append(bytesLabel(std::ldexp(1.0, p)), p);
    x->setTitleText(tr("message size"));
    auto* y = new QValueAxis;
    y->setRange(0, top > 0 ? top * 1.1 : 1);
    y->applyNiceNumbers();
    y->setTitleText(tr("bus bandwidth (GB/s)"));
    y->setLabelFormat("%.0f");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (auto* s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    chart->legend()->setAlignment(Qt::AlignBottom);
    replaceChart(chart);
    QString text = tr("%1 over %2 GPUs on %3 node(s), %4: measured in %5 (%6 sizes)")
                       .arg(qs(m.op))
                       .arg(r.ranks)
                       .arg(r.nodes)
                       .arg(r.placement, r.measured->path)
                       .arg(m.rows.size());
    if (!r.algorithm.isEmpty()) text += tr("; the twin forced to %1").arg(r.algorithm);
    if (m.bad_lines > 0)
        text += tr("; %1 line(s) that are not result rows skipped (first: %2)").arg(m.bad_lines).arg(qs(m.problems.front()));
    if (r.twin.size() < m.rows.size()) text += tr("; stopped after %1 sizes").arg(r.twin.size());
    if (!big_ratios.empty()) {
        const auto [mn, mx] = std::minmax_element(big_ratios.begin(), big_ratios.end());
        text += tr(". Twin / measured bus bandwidth from 256 MiB: %1 to %2").arg(*mn, 0, 'f', 2).arg(*mx, 0, 'f', 2);
    }
    if (m.ranks > 0 && m.ranks != r.ranks) text += tr(". The file lists %1 ranks, the twin ran %2").arg(m.ranks).arg(r.ranks);
    if (!r.gpu_mismatch.isEmpty()) text += tr(". Note: %1").arg(r.gpu_mismatch);
    summary_->setText(text + ".");
}

}  // namespace ct::app
