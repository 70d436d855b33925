#pragma once
#include "entity_ref.hpp"

#include <QTableWidget>

namespace ct::app {
class ScenarioDocument;

/// Properties of the selected entity: its own fields, its catalog figures and derived values. Name, position,
/// facing, U position and setpoints are editable (double-click); an edit is reported, not applied here.
class PropertiesPanel : public QTableWidget {
    Q_OBJECT
public:
    explicit PropertiesPanel(const ScenarioDocument& doc, QWidget* parent = nullptr);
    void show(const EntityRef& ref);
    /// The value shown for `key`, or an empty string (for tests and copy).
    QString value(const QString& key) const;
    /// Edits the value shown for `key` as a user would (tests).
    bool editValue(const QString& key, const QString& text);

signals:
    /// The user changed an editable value: `key` as model::setProperty takes it ("position" gives "x, y").
    void propertyEdited(const QString& id, const QString& key, const QString& value);

private:
    const ScenarioDocument& doc_;
    EntityRef ref_;
    bool filling_ = false;
};

}  // namespace ct::app
