// The Charts dock's input (ChartsPanel): the mouse over the plot (read-out, zoom, pan), drops from the scenario
// tree, and the PNG export. The series, their drawing and the CSV export are in charts_panel.cpp.
#include "charts_panel.hpp"

#include "run_controller.hpp"
#include "scenario_tree.hpp"

#include <QChart>
#include <QChartView>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLineSeries>
#include <QMimeData>
#include <QMouseEvent>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>

#include <cmath>

namespace ct::app {

bool ChartsPanel::eventFilter(QObject* watched, QEvent* e) {
    if (watched != view_->viewport()) return QWidget::eventFilter(watched, e);
    QChart* chart = view_->chart();
    switch (e->type()) {
        case QEvent::MouseMove: {
            auto* me = static_cast<QMouseEvent*>(e);
            const QPointF v = chart->mapToValue(chart->mapFromScene(view_->mapToScene(me->position().toPoint())), cursor_);
            if (panning_) {
                const double dx = pan_from_x_ - v.x();
                zoomed_ = true;
                x_->setRange(x_->min() + dx, x_->max() + dx);
                return true;
            }
            if (chart->plotArea().contains(chart->mapFromScene(view_->mapToScene(me->position().toPoint()))))
                QToolTip::showText(me->globalPosition().toPoint(), readoutAt(v.x() * time_unit_s_), view_);
            else QToolTip::hideText();
            break;
        }
        case QEvent::MouseButtonPress: {
            auto* me = static_cast<QMouseEvent*>(e);
            if (me->button() == Qt::MiddleButton) {
                panning_ = true;
                pan_from_x_ = chart->mapToValue(chart->mapFromScene(view_->mapToScene(me->position().toPoint())), cursor_).x();
                return true;
            }
            break;
        }
        case QEvent::MouseButtonRelease:
            if (panning_) {
                panning_ = false;
                return true;
            }
            zoomed_ = true;  // the rubber band may have zoomed
            break;
        case QEvent::MouseButtonDblClick:
            resetZoom();
            return true;
        case QEvent::Wheel: {
            auto* we = static_cast<QWheelEvent*>(e);
            const double at = chart->mapToValue(chart->mapFromScene(view_->mapToScene(we->position().toPoint())), cursor_).x();
            const double k = std::pow(0.8, we->angleDelta().y() / 120.0);
            zoomed_ = true;
            x_->setRange(at - (at - x_->min()) * k, at + (x_->max() - at) * k);
            return true;
        }
        default:
            break;
    }
    return QWidget::eventFilter(watched, e);
}

void ChartsPanel::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasFormat(ScenarioTree::kEntityMime) && run_.replay()) e->acceptProposedAction();
}

void ChartsPanel::dropEvent(QDropEvent* e) {
    const QStringList ids = QString::fromUtf8(e->mimeData()->data(ScenarioTree::kEntityMime)).split('\n', Qt::SkipEmptyParts);
    QString why;
    for (const QString& id : ids)
        if (!addSeries(id, {}, &why)) QToolTip::showText(mapToGlobal(e->position().toPoint()), why, this);
    e->acceptProposedAction();
}

bool ChartsPanel::savePng(const QString& path, QString* error) {
    if (!view_->grab().save(path, "PNG")) {
        if (error) *error = tr("Could not write %1").arg(path);
        return false;
    }
    return true;
}

}  // namespace ct::app
