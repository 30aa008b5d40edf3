// What the CLI does when its output cannot be written (a full disk, /dev/full): it says so on
// stderr and fails, so that a script never takes a truncated table or export for a whole one.
#include "unit/tools/tools_fixture.hpp"

namespace gemmtune::tools_test {
namespace {

using OutputErrors = CliTest;

TEST_F(OutputErrors, AFullStdoutIsAnErrorOfEveryCommand) {
  const std::string db = fixture().string();
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"db", "best", "--format", "json", "--db", db},
                                             {"db", "devices", "--db", db},
                                             {"db", "export", "--db", db},
                                             {"space", "--list", "--max", "3"},
                                             {"explain", "--shape", "64x64x64", "--arch", "sm_90"},
                                             {"sweep", "--dry-run", "--db", path("t.db")},
                                             {"--help"}}) {
    ::gemmtune::test::RunOptions options;
    options.stdout_file = "/dev/full";
    options.unset_env = {"GEMMTUNE_DB"};
    CliRun r = ::gemmtune::test::run_cli(args, options);
    EXPECT_EQ(r.status, 1) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find("gemmtune: cannot write the output: "), std::string::npos)
        << args[0] << " " << args[1] << ": " << r.err;
  }
}

TEST_F(OutputErrors, AShortOutputSaysWhyItFailed) {
  ::gemmtune::test::RunOptions options;
  options.stdout_file = "/dev/full";
  CliRun r = ::gemmtune::test::run_cli(
      {"db", "best", "--format", "json", "--db", fixture().string()}, options);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err, "gemmtune: cannot write the output: No space left on device\n");
}

}  // namespace
}  // namespace gemmtune::tools_test
