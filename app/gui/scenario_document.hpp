#pragma once
// The open scenario with its effective catalog and validation problems: what the app's views observe.
#include "entity_ref.hpp"

#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QObject>
#include <QString>

namespace ct::app {

class ScenarioDocument : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    /// Loads and validates `path`. On success (no errors; warnings allowed) replaces the document and emits
    /// changed(). On failure keeps the current document and returns false with `problems` filled (syntax error
    /// with line/column, or every validation error and warning). Never throws.
    bool load(const QString& path, model::Diagnostics& problems, QString& error_text);

    const model::Scenario& scenario() const { return scenario_; }
    const model::Catalog& catalog() const { return catalog_; }
    const model::Diagnostics& warnings() const { return warnings_; }
    const QString& path() const { return path_; }
    /// The kind of an entity by its id (racks, nodes, GPUs, rows, units, power, jobs); invalid when unknown.
    EntityRef refOf(const QString& id) const;

signals:
    void changed();

private:
    model::Scenario scenario_;
    model::Catalog catalog_;
    model::Diagnostics warnings_;
    QString path_;
};

} // namespace ct::app
