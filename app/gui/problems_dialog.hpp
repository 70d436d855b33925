#pragma once
#include <clustertwin/model/error.hpp>

#include <QDialog>

namespace ct::app {

/// Lists every problem of a file that could not be opened: severity, JSON pointer or line, message.
class ProblemsDialog : public QDialog {
    Q_OBJECT
public:
    ProblemsDialog(const QString& file, const QString& summary, const model::Diagnostics& problems, QWidget* parent);
    int problemCount() const { return count_; }

private:
    int count_ = 0;
};

}  // namespace ct::app
