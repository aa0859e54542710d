// doctest's main, which also fails a run whose filters select no test case: CTest runs each case
// as `attn_tests --test-case=<name>`, and a name that the filter syntax splits or misreads (a
// comma or a semicolon in it) would otherwise run nothing and pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

int selected = -1;   // test cases that passed the filters in the last run

struct CountSelected : doctest::IReporter {
    explicit CountSelected(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& s) override { selected = int(s.numTestCasesPassingFilters); }
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("count-selected", 1, CountSelected);

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    const int result = context.run();
    if (context.shouldExit()) return result;   // --list-test-cases, --help, ...
    if (selected == 0) {
        std::fprintf(stderr, "attn_tests: no test case matches the filters\n");
        return 1;
    }
    return result;
}
