#pragma once
// Analysis > Compare with nccl-tests output… (issue 41): what nccl-tests measured on a cluster (the text
// all_reduce_perf and its siblings print) charted against the twin's collective on the open scenario's fabric,
// bus bandwidth over message size, with a table of the ratio size by size — the app's `clustertwin-cli
// compare-nccl`. The twin's sweep runs off the GUI thread.
#include <QDialog>
#include <QString>

#include <memory>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;
class QThread;

namespace ct::app {

class ScenarioDocument;

class NcclCompareDialog : public QDialog {
    Q_OBJECT
public:
    NcclCompareDialog(const ScenarioDocument& doc, QWidget* parent = nullptr);
    ~NcclCompareDialog() override;
    /// Reads nccl-tests output from `path` and starts the twin's sweep over its sizes. False (and the reason in
    /// the summary) when the file cannot be read or holds no result row; the ranks box takes the file's rank count.
    bool load(const QString& path);
    /// Runs the twin again on the document as it is now, with the ranks, placement and algorithm in the form.
    void recompute();
    bool busy() const { return busy_; }
    QString summary() const;
    QTableWidget* table() const { return table_; }
    QChartView* chartView() const { return chart_; }
    QSpinBox* ranksBox() const { return ranks_; }

signals:
    /// The twin's answer is in the chart and table (or the summary says why there is none).
    void computed();

private:
    struct Measured;
    struct Result;
    void display(const Result& r);
    void replaceChart(QChart* chart);
    void pickFile();

    const ScenarioDocument& doc_;
    std::shared_ptr<const Measured> measured_;
    QLabel* file_;
    QLabel* summary_;
    QSpinBox* ranks_;
    QComboBox* placement_;
    QComboBox* algorithm_;  ///< as NCCL's tuner picks, or one forced (NCCL_ALGO), e.g. CollNet for a SHARP run
    QChartView* chart_;
    QTableWidget* table_;
    QThread* worker_ = nullptr;
    bool busy_ = false;
    bool again_ = false;  ///< asked to recompute while a sweep ran
};

}  // namespace ct::app
