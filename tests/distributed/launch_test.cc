#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "common/error.h"
#include "common/test_util.h"
#include "common/warning.h"
#include "distributed/dist_env.h"
#include "distributed/launcher.h"

namespace bertpt::distributed {
namespace {

using testing::slurp;
using testing::TempDir;

DistEnv from(std::map<std::string, std::string> vars) {
  return detect_dist_env([vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(DistEnv, SingleProcessWithoutALauncher) {
  auto e = from({});
  EXPECT_EQ(e.world_size, 1);
  EXPECT_EQ(e.rank, 0);
  EXPECT_FALSE(e.distributed());
  EXPECT_EQ(e.launcher, "none");
}

TEST(DistEnv, OneRankGetsAProcessGroupOnlyWhenAsked) {
  EXPECT_FALSE(from({{"RANK", "0"}, {"WORLD_SIZE", "1"}}).distributed());
  EXPECT_TRUE(from({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"BERTPT_PROCESS_GROUP_FOR_ONE", "1"}}).distributed());
  EXPECT_FALSE(from({{"BERTPT_PROCESS_GROUP_FOR_ONE", "1"}}).distributed()) << "needs a launcher's variables";
}

TEST(DistEnv, TorchrunMpiAndSlurm) {
  auto t = from({{"RANK", "3"},
                 {"WORLD_SIZE", "8"},
                 {"LOCAL_RANK", "1"},
                 {"LOCAL_WORLD_SIZE", "2"},
                 {"MASTER_ADDR", "node0"},
                 {"MASTER_PORT", "29400"}});
  EXPECT_EQ(t.launcher, "torchrun");
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.world_size, 8);
  EXPECT_EQ(t.local_rank, 1);
  EXPECT_EQ(t.local_world_size, 2);
  EXPECT_EQ(t.master_addr, "node0");
  EXPECT_EQ(t.master_port, 29400);

  auto m = from({{"OMPI_COMM_WORLD_RANK", "5"},
                 {"OMPI_COMM_WORLD_SIZE", "16"},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", "5"},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"},
                 {"MASTER_ADDR", "10.0.0.1"}});
  EXPECT_EQ(m.launcher, "mpirun");
  EXPECT_EQ(m.rank, 5);
  EXPECT_EQ(m.local_world_size, 8);
  EXPECT_EQ(m.master_port, 29500);

  auto s = from({{"SLURM_PROCID", "9"},
                 {"SLURM_STEP_ID", "0"},
                 {"SLURM_NTASKS", "16"},
                 {"SLURM_LOCALID", "1"},
                 {"SLURM_NTASKS_PER_NODE", "8(x2)"},
                 {"MASTER_ADDR", "gpu-001"},
                 {"MASTER_PORT", "29501"}});
  EXPECT_EQ(s.launcher, "slurm");
  EXPECT_EQ(s.rank, 9);
  EXPECT_EQ(s.local_rank, 1);
  EXPECT_EQ(s.local_world_size, 8);
}

TEST(DistEnv, TorchrunAgentStoreAndRestarts) {
  auto t = from({{"RANK", "0"},
                 {"WORLD_SIZE", "2"},
                 {"MASTER_ADDR", "node0"},
                 {"MASTER_PORT", "29400"},
                 {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                 {"TORCHELASTIC_RESTART_COUNT", "3"}});
  EXPECT_TRUE(t.agent_store);
  EXPECT_EQ(t.restart_count, 3);
  // torch's env:// rendezvous compares with str(True): "False" (TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1)
  // means rank 0 hosts the store, as without torchrun's agent.
  EXPECT_FALSE(from({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"TORCHELASTIC_USE_AGENT_STORE", "False"}}).agent_store);
  EXPECT_FALSE(from({{"RANK", "0"}, {"WORLD_SIZE", "2"}}).agent_store);
}

TEST(DistEnv, SlurmRendezvousFromTheJobWithNothingExported) {
  auto s = from({{"SLURM_PROCID", "5"},
                 {"SLURM_STEP_ID", "0"},
                 {"SLURM_NTASKS", "7"},
                 {"SLURM_LOCALID", "1"},
                 {"SLURM_NODEID", "2"},
                 {"SLURM_STEP_TASKS_PER_NODE", "2(x2),3"},
                 {"SLURM_NTASKS_PER_NODE", "9"},
                 {"SLURM_JOB_NODELIST", "gpu[07-09]"},
                 {"SLURM_JOB_ID", "123456"}});
  EXPECT_EQ(s.master_addr, "gpu07");
  EXPECT_EQ(s.master_port, 18456);
  EXPECT_EQ(s.local_world_size, 3) << "the step's tasks on node 2";
  EXPECT_EQ(s.local_rank, 1);
  auto exported = from({{"SLURM_PROCID", "0"},
                        {"SLURM_STEP_ID", "0"},
                        {"SLURM_NTASKS", "2"},
                        {"SLURM_JOB_NODELIST", "gpu[07-09]"},
                        {"SLURM_JOB_ID", "123456"},
                        {"MASTER_ADDR", "10.1.1.1"},
                        {"MASTER_PORT", "29555"}});
  EXPECT_EQ(exported.master_addr, "10.1.1.1");
  EXPECT_EQ(exported.master_port, 29555);
  EXPECT_THROW(
      from({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}, {"SLURM_JOB_NODELIST", "gpu[07-"}}),
      BadInput);
  // The batch script itself (no step): one process, with a warning.
  WarningCapture warnings;
  auto batch = from(
      {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "gpu07"}, {"SLURM_JOB_ID", "9"}});
  EXPECT_FALSE(batch.distributed());
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_NE(warnings.messages()[0].find("outside srun"), std::string::npos);
}

TEST(DistEnv, InconsistentOrMissingValuesAreClearErrors) {
  EXPECT_THROW(from({{"RANK", "4"}, {"WORLD_SIZE", "4"}}), BadInput);
  EXPECT_THROW(from({{"RANK", "x"}, {"WORLD_SIZE", "4"}}), BadInput);
  EXPECT_THROW(from({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}}), BadInput);  // no MASTER_ADDR
  try {
    from({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}});
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(e.hint().find("MASTER_ADDR"), std::string::npos);
  }
}

LaunchOptions shell_workers(const std::string& script, int n) {
  LaunchOptions o;
  o.nproc_per_node = n;
  o.argv = {"/bin/sh", "-c", script};
  o.quiet = true;
  o.grace_seconds = 2;
  return o;
}

TEST(Launcher, GivesEachWorkerItsRendezvousEnvironment) {
  TempDir d;
  auto o = shell_workers("echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR $BERTPT_LAUNCHED\" > " +
                             d.path() + "/rank$RANK; test -n \"$MASTER_PORT\"",
                         3);
  EXPECT_EQ(run_workers(o), 0);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(slurp(d.file("rank" + std::to_string(r))),
              std::to_string(r) + " 3 " + std::to_string(r) + " 3 127.0.0.1 1\n");
  }
}

TEST(Launcher, OneFailingWorkerStopsTheOthersQuickly) {
  // Rank 1 fails at once; the others would sleep for a minute.
  auto o = shell_workers("if [ \"$RANK\" = 1 ]; then exit 3; fi; sleep 60", 3);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run_workers(o), 3);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(15));
}

// A process that has exited (or is a zombie waiting for its parent) counts as gone.
bool process_gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

TEST(Launcher, StoppingAWorkerAlsoStopsItsChildren) {
  // The workers are wrapper scripts whose real work is a child process: when rank 1 fails, the
  // others' children must go too (their whole process group is signalled), not live on as orphans.
  TempDir d;
  auto o = shell_workers("if [ \"$RANK\" = 1 ]; then while [ ! -s " + d.path() +
                             "/child0 ]; do sleep 0.05; done; exit 3; fi; "
                             "sleep 60 & echo $! > " +
                             d.path() + "/child$RANK.tmp; mv " + d.path() + "/child$RANK.tmp " + d.path() +
                             "/child$RANK; wait",
                         2);
  EXPECT_EQ(run_workers(o), 3);
  const pid_t child = static_cast<pid_t>(std::stol(slurp(d.file("child0"))));
  bool gone = false;
  for (int i = 0; i < 100 && !(gone = process_gone(child)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(gone) << "the child of rank 0 (pid " << child << ") outlived the job";
  if (!gone) ::kill(child, SIGKILL);
}

TEST(Launcher, WorkerKilledBySignalIsReported) {
  auto o = shell_workers("if [ \"$RANK\" = 0 ]; then kill -9 $$; fi; sleep 60", 2);
  EXPECT_EQ(run_workers(o), 128 + 9);
}

TEST(Launcher, ForwardsSigtermToTheWorkers) {
  TempDir d;
  auto o = shell_workers("trap 'echo stopped > " + d.path() + "/got$RANK; exit 0' TERM; touch " + d.path() +
                             "/up$RANK; while true; do sleep 0.1; done",
                         2);
  std::thread killer([&] {
    for (int i = 0; i < 200 && !(std::filesystem::exists(d.file("up0")) && std::filesystem::exists(d.file("up1")));
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(::getpid(), SIGTERM);
  });
  int rc = run_workers(o);
  killer.join();
  EXPECT_EQ(rc, 0) << "workers that stop cleanly on a forwarded signal make a clean exit";
  EXPECT_EQ(slurp(d.file("got0")), "stopped\n");
  EXPECT_EQ(slurp(d.file("got1")), "stopped\n");
}

TEST(Launcher, BadOptions) {
  auto o = shell_workers("true", 0);
  EXPECT_THROW(run_workers(o), BadInput);
  o = shell_workers("true", 1);
  o.nnodes = 2;
  EXPECT_THROW(run_workers(o), BadInput);  // multi-node without a fixed port
  o.master_port = 29999;
  o.node_rank = 2;
  EXPECT_THROW(run_workers(o), BadInput);
}

}  // namespace
}  // namespace bertpt::distributed
