#pragma once
// A strip above the 3D view that says what the user must know about what is shown: a run of an edited
// scenario, results outside physical ranges, telemetry only partly matched. Hidden when there is nothing to say;
// the user can dismiss it until the next notice.
#include <QWidget>

class QLabel;

namespace ct::app {

class NoticeBar : public QWidget {
    Q_OBJECT
public:
    enum class Level { Info, Warning, Error };
    explicit NoticeBar(QWidget* parent = nullptr);
    /// Shows `text` ("" hides the bar).
    void setNotice(Level level, const QString& text);
    void clear() { setNotice(Level::Info, {}); }
    QString text() const;
    Level level() const { return level_; }

private:
    QLabel* label_;
    Level level_ = Level::Info;
};

}  // namespace ct::app
