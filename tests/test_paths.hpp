#pragma once
// Where a test finds the checkout's resources and test data, the real captures beside the checkout and the
// built programs. The paths are compiled into one generated object (test_paths.cpp in the build tree, made by
// tests/CMakeLists.txt), not into every test: a test's own object then does not depend on where the checkout
// and the build are, so ccache serves it to a fresh clone (docs/building.md).

namespace ct::test {
const char* testDataDir();        ///< tests/data
const char* resourceDir();        ///< resources/ in the source tree
const char* sharedTestDataDir();  ///< ../shared/testdata (real tool output, not in the repository)
const char* baselineDir();        ///< tests/baselines
const char* cliPath();            ///< the built clustertwin-cli
const char* appPath();            ///< the built clustertwin (empty without the app)
const char* benchPath();          ///< the built clustertwin-bench (empty without it)
}  // namespace ct::test

#define CT_TEST_DATA_DIR (::ct::test::testDataDir())
#define CT_RESOURCE_DIR (::ct::test::resourceDir())
#define CT_SOURCE_RESOURCE_DIR (::ct::test::resourceDir())
#define CT_SHARED_TESTDATA_DIR (::ct::test::sharedTestDataDir())
#define CT_BASELINE_DIR (::ct::test::baselineDir())
#define CT_CLI_PATH (::ct::test::cliPath())
#define CT_APP_PATH (::ct::test::appPath())
#define CT_BENCH_PATH (::ct::test::benchPath())
