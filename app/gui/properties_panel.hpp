#pragma once
#include "entity_ref.hpp"

#include <QTableWidget>

namespace ct::app {
class ScenarioDocument;

/// Properties of the selected entity: its own fields, its catalog figures and derived values.
class PropertiesPanel : public QTableWidget {
    Q_OBJECT
public:
    explicit PropertiesPanel(const ScenarioDocument& doc, QWidget* parent = nullptr);
    void show(const EntityRef& ref);
    /// The value shown for `key`, or an empty string (for tests and copy).
    QString value(const QString& key) const;

private:
    const ScenarioDocument& doc_;
};

} // namespace ct::app
