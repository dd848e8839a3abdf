// What an srun task reads from Slurm to join its job without anything exported by hand, as
// Lightning and torchrun-in-sbatch recipes do:
//   the rendezvous host  = the first host of SLURM_JOB_NODELIST, in Slurm's compressed host-list
//                          syntax ("gpu[01-04,07],login1", "rack[1-2]-n[08-09]");
//   the rendezvous port  = 15000 + the last four digits of SLURM_JOB_ID (Lightning's rule), so every
//                          task of a job, and a requeued job, derives the same one;
//   the tasks on a node  = SLURM_STEP_TASKS_PER_NODE ("4(x2),3": 4 on nodes 0 and 1, 3 on node 2) at
//                          this task's SLURM_NODEID.
#pragma once

#include <string>
#include <vector>

namespace bertpt::distributed {

// Every host of a Slurm host list, in order. Throws BadInput naming the list when a bracket is
// unbalanced or a range is not "N" or "N-M" with N <= M.
std::vector<std::string> expand_slurm_hostlist(const std::string& list);

// The number of tasks on node `node_id` of a Slurm tasks-per-node list ("4(x2),3"). Throws BadInput
// when the list is malformed or shorter than node_id + 1 nodes.
int slurm_tasks_on_node(const std::string& tasks_per_node, int node_id);

// The rendezvous port of Slurm job `job_id`: 15000 + its last four digits. Throws BadInput when the
// id is not a number.
int slurm_job_port(const std::string& job_id);

}  // namespace bertpt::distributed
