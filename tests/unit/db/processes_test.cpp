// Several processes on one file: a writer killed with SIGKILL mid-write loses nothing it committed,
// and four concurrent writers lose no row. Also prints the write rate (not asserted).
#include <signal.h>

#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

using Clock = std::chrono::steady_clock;
using Processes = ScratchDirTest;

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = write(fd, p, size);
    if (w <= 0) return false;
    p += w;
    size -= static_cast<std::size_t>(w);
  }
  return true;
}

// A forked child running `fn(report_fd)`; exit status 0 when fn returned true.
struct Child {
  pid_t pid = -1;
  int report = -1;  // read end of the child's report pipe

  static Child start(const std::function<bool(int)>& fn) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    Child c;
    c.pid = fork();
    if (c.pid == 0) {
      close(fds[0]);
      bool ok = false;
      try {
        ok = fn(fds[1]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", getpid(), e.what());
      }
      _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    c.report = fds[0];
    return c;
  }
  // Everything the child wrote, until it closed the pipe (exited).
  std::string read_all() {
    std::string out;
    char buf[4096];
    ssize_t r;
    while ((r = read(report, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(r));
    return out;
  }
  int wait() {
    int status = 0;
    waitpid(pid, &status, 0);
    close(report);
    return status;
  }
};

// The last complete 8-byte counter in `reports`.
std::uint64_t last_count(const std::string& reports) {
  std::uint64_t n = 0;
  if (reports.size() >= 8) std::memcpy(&n, reports.data() + (reports.size() / 8 - 1) * 8, 8);
  return n;
}

// Child body: one result per transaction (plus one transaction for its config), reporting the
// number committed after each commit, until killed.
bool write_until_killed(const std::string& file, Id sweep, Id gpu, int report) {
  Database db(file, OpenMode::read_write);
  const Id problem = db.upsert_problem(sample_problem(4096));
  (void)gpu;
  for (std::uint64_t i = 0; i < 1000000; ++i) {
    const Id config = db.upsert_config(sample_config(static_cast<int>(i)));
    Result r = ok_result(problem, config, 1.0 + static_cast<double>(i));
    r.error = std::string(300, 'e');  // bigger rows: more pages per transaction
    db.record_results(sweep, std::span(&r, 1));
    const std::uint64_t committed = i + 1;
    if (!write_all(report, &committed, sizeof committed)) return false;
  }
  return true;
}

TEST_F(Processes, SigkillMidWriteLosesNoCommittedResult) {
  const std::string file = path("tuning.db");
  Id gpu = 0;
  {
    Database db(file, OpenMode::read_write);
    gpu = db.upsert_gpu_model(sample_gpu());
  }
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Id sweep = 0;
    {
      Database db(file, OpenMode::read_write);
      sweep = db.begin_sweep(sweep_info(gpu, "round " + std::to_string(round)));
    }
    Child child = Child::start([&](int fd) { return write_until_killed(file, sweep, gpu, fd); });
    // Let it commit a while, then kill it at a moment that varies from round to round.
    std::uint64_t seen = 0;
    char buf[8];
    while (seen < 100 && read(child.report, buf, 8) == 8) ++seen;
    std::this_thread::sleep_for(std::chrono::milliseconds(3 + 7 * round));
    kill(child.pid, SIGKILL);
    const std::string rest = child.read_all();
    const int status = child.wait();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child ended on its own";
    const std::uint64_t committed = rest.size() >= 8 ? last_count(rest) : seen;
    ASSERT_GE(committed, 100u);

    Database db(file, OpenMode::read_write);  // recovery happens here
    const CheckReport report = db.check();
    EXPECT_TRUE(report.ok()) << (report.problems.empty() ? "" : report.problems[0]);
    std::set<std::string> stored;
    for (const ResultRow& row : db.results_for(sample_problem(4096), gpu)) {
      if (row.sweep_id == sweep) stored.insert(row.config.name);
    }
    // Every reported commit is there; at most one more (committed, killed before reporting).
    for (std::uint64_t i = 0; i < committed; ++i) {
      ASSERT_TRUE(stored.count(sample_config(static_cast<int>(i)).name)) << "lost result " << i;
    }
    EXPECT_LE(stored.size(), committed + 1);
    std::cout << "[ info     ] round " << round << ": killed after " << committed
              << " committed results; all present\n";
  }
}

struct Workload {
  int batches = 100;
  int batch_size = 50;
  int results() const { return batches * batch_size; }
};

// Child body of the concurrent test: opens (maybe creating) the file, then records its results
// in batches; configs and problems are shared with the other writers (same natural keys).
bool record_workload(const std::string& file, const Workload& w, int go, int report) {
  char c;
  if (read(go, &c, 1) < 0) return false;  // wait for the start signal (EOF)
  Database db(file, OpenMode::read_write);
  const Id gpu = db.upsert_gpu_model(sample_gpu());
  const Id sweep = db.begin_sweep(sweep_info(gpu, "writer " + std::to_string(getpid())));
  std::vector<Id> configs;
  for (int i = 0; i < w.batch_size; ++i) configs.push_back(db.upsert_config(sample_config(i)));
  std::vector<Result> batch;
  for (int b = 0; b < w.batches; ++b) {
    const Id problem = db.upsert_problem(sample_problem(16 * (b + 1)));
    batch.clear();
    for (int i = 0; i < w.batch_size; ++i) batch.push_back(ok_result(problem, configs[i], 1.0 + i));
    db.record_results(sweep, batch);
  }
  db.finish_sweep(sweep);
  const std::int64_t id = sweep;
  return write_all(report, &id, sizeof id);
}

// Runs `writers` processes on a new file at once; returns results per second of all together.
double run_writers(const std::string& file, int writers, const Workload& w,
                   std::vector<Id>& sweeps) {
  int go[2];
  if (pipe(go) != 0) throw std::runtime_error("pipe");
  std::vector<Child> children;
  for (int i = 0; i < writers; ++i) {
    children.push_back(Child::start([&](int fd) {
      close(go[1]);
      return record_workload(file, w, go[0], fd);
    }));
  }
  close(go[0]);
  const auto t0 = Clock::now();
  close(go[1]);  // start them all
  for (Child& c : children) {
    const std::string out = c.read_all();
    const int status = c.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
    if (out.size() == 8) sweeps.push_back(last_count(out));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return writers * w.results() / seconds;
}

TEST_F(Processes, FourWritersAtOnceLoseNoRow) {
  const Workload w;
  std::vector<Id> sweeps;
  const double rate = run_writers(path("four.db"), 4, w, sweeps);
  ASSERT_EQ(sweeps.size(), 4u);
  Database db(path("four.db"), OpenMode::read_only);
  EXPECT_TRUE(db.check().ok());
  EXPECT_EQ(db.gpu_models().size(), 1u);
  EXPECT_EQ(scalar(db.path(), "SELECT count(*) FROM configs"), w.batch_size);
  EXPECT_EQ(scalar(db.path(), "SELECT count(*) FROM problems"), w.batches);
  for (Id s : sweeps) {
    EXPECT_EQ(
        scalar(db.path(), "SELECT count(*) FROM results WHERE sweep_id = " + std::to_string(s)),
        w.results());
  }
  EXPECT_EQ(scalar(db.path(), "SELECT count(*) FROM results"), 4 * w.results());
  for (const SweepRow& s : db.sweeps()) EXPECT_TRUE(s.finished_at);
  EXPECT_EQ(db.bests().size(), static_cast<std::size_t>(w.batches));

  std::vector<Id> one_sweep;
  const double one = run_writers(path("one.db"), 1, w, one_sweep);
  std::cout << "[ info     ] write rate, batches of " << w.batch_size << ": one process "
            << static_cast<long>(one) << " results/s; four processes together "
            << static_cast<long>(rate) << " results/s\n";
  Workload single;
  single.batches = 1000;
  single.batch_size = 1;
  one_sweep.clear();
  const double per_tx = run_writers(path("single.db"), 1, single, one_sweep);
  std::cout << "[ info     ] write rate, one result per transaction: one process "
            << static_cast<long>(per_tx) << " results/s\n";
}

// A writer waits for another writer's lock longer than the 10 s a reader waits (a long merge must
// not cost a sweep its measurements): here the lock is held for 11 s, and the write then lands.
TEST_F(Processes, AWriterOutwaitsALongLock) {
  const std::string file = path("tuning.db");
  Database db(file, OpenMode::read_write);
  const Id gpu = db.upsert_gpu_model(sample_gpu());
  const Id sweep = db.begin_sweep(sweep_info(gpu, "gemmtune sweep"));
  const Id problem = db.upsert_problem(sample_problem(64));
  const Id config = db.upsert_config(sample_config(0));
  Connection holder(file, OpenMode::read_write);
  holder.exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::seconds(11));
    holder.exec("COMMIT");
  });
  const auto start = Clock::now();
  const Result r = ok_result(problem, config, 1.0);
  EXPECT_NO_THROW(db.record_results(sweep, std::span<const Result>(&r, 1)));
  release.join();
  EXPECT_GE(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(db.results_for(sample_problem(64), gpu).size(), 1u);
}

}  // namespace
}  // namespace gemmtune::db::test
