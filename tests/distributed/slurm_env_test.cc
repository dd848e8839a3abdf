// Slurm's host-list and tasks-per-node syntax as srun writes them (distributed/slurm_env.h).
#include "distributed/slurm_env.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace bertpt::distributed {
namespace {

using Hosts = std::vector<std::string>;

TEST(SlurmHostlist, ExpandsRangesListsAndPadding) {
  EXPECT_EQ(expand_slurm_hostlist("node7"), Hosts({"node7"}));
  EXPECT_EQ(expand_slurm_hostlist("gpu[01-04,07]"), Hosts({"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"}));
  EXPECT_EQ(expand_slurm_hostlist("a[9-11],login1"), Hosts({"a9", "a10", "a11", "login1"}));
  EXPECT_EQ(expand_slurm_hostlist("n[098-101]"), Hosts({"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(expand_slurm_hostlist("rack[1-2]-n[8,10]"), Hosts({"rack1-n8", "rack1-n10", "rack2-n8", "rack2-n10"}));
  EXPECT_EQ(expand_slurm_hostlist("x[3]y,z"), Hosts({"x3y", "z"}));
  EXPECT_EQ(expand_slurm_hostlist("10.0.0.[5-6]"), Hosts({"10.0.0.5", "10.0.0.6"}));
}

TEST(SlurmHostlist, MalformedListsNameTheList) {
  for (const char* bad : {"gpu[01-04", "gpu01]", "gpu[4-1]", "gpu[a-b]", "gpu[]", "a,,b", "", "n[1-2-3]"}) {
    try {
      expand_slurm_hostlist(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const BadInput& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(SlurmTasksPerNode, IndexesRepeatedGroups) {
  EXPECT_EQ(slurm_tasks_on_node("2", 0), 2);
  EXPECT_EQ(slurm_tasks_on_node("4(x2),3", 0), 4);
  EXPECT_EQ(slurm_tasks_on_node("4(x2),3", 1), 4);
  EXPECT_EQ(slurm_tasks_on_node("4(x2),3", 2), 3);
  EXPECT_EQ(slurm_tasks_on_node("1,2(x3)", 3), 2);
  EXPECT_THROW(slurm_tasks_on_node("4(x2),3", 3), BadInput);
  EXPECT_THROW(slurm_tasks_on_node("4(x2", 0), BadInput);
  EXPECT_THROW(slurm_tasks_on_node("four", 0), BadInput);
}

TEST(SlurmJobPort, LastFourDigitsAbove15000) {
  EXPECT_EQ(slurm_job_port("7"), 15007);
  EXPECT_EQ(slurm_job_port("1234567"), 19567);
  EXPECT_EQ(slurm_job_port("4294967295"), 22295);
  EXPECT_THROW(slurm_job_port("12_3"), BadInput);  // an array task's "JOB_TASK" form is not a job id
}

}  // namespace
}  // namespace bertpt::distributed
