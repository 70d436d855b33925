#pragma once
// Failures of the run store and what reads or writes runs (contributing.md habit 3).
#include <clustertwin/model/error.hpp>

namespace ct::runs {

/// A run database that cannot be opened, read or written (the message names the path and SQLite's reason), or
/// a run that is not there.
class StoreError : public Error {
public:
    using Error::Error;
};

/// A long read stopped on request (a progress callback said no).
class StoreCancelled : public StoreError {
public:
    StoreCancelled() : StoreError("cancelled") {}
};

}  // namespace ct::runs
