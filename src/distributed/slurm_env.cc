#include "distributed/slurm_env.h"

#include <cctype>

#include "common/error.h"

namespace bertpt::distributed {

namespace {

BadInput bad_list(const std::string& what, const std::string& list) {
  return BadInput(what + " '" + list + "' is not a Slurm list", "as Slurm writes it, e.g. 'gpu[01-04,07],login1'");
}

// Splits at the commas outside brackets.
std::vector<std::string> split_top_level(const std::string& s, const std::string& list) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) throw bad_list("host list", list);
    if (c == ',' && depth == 0) parts.emplace_back();
    else parts.back() += c;
  }
  if (depth != 0) throw bad_list("host list", list);
  return parts;
}

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 10) return false;  // up to 2^32 - 1, the largest job id
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "01-04" -> 01 02 03 04 (the width of the first bound is kept: Slurm's zero padding), "7" -> 7.
void expand_range(const std::string& range, const std::string& list, std::vector<std::string>& out) {
  const size_t dash = range.find('-');
  const std::string lo = range.substr(0, dash), hi = dash == std::string::npos ? lo : range.substr(dash + 1);
  if (!all_digits(lo) || !all_digits(hi) || std::stol(lo) > std::stol(hi) || std::stol(hi) - std::stol(lo) > 1000000) {
    throw bad_list("host list", list);
  }
  for (long v = std::stol(lo); v <= std::stol(hi); ++v) {
    std::string n = std::to_string(v);
    if (n.size() < lo.size()) n.insert(0, lo.size() - n.size(), '0');
    out.push_back(n);
  }
}

// One host pattern, "rack[1-2]-n[08-09]": each bracket group multiplies the hosts.
void expand_pattern(const std::string& pattern, const std::string& list, std::vector<std::string>& out) {
  const size_t open = pattern.find('[');
  if (open == std::string::npos) {
    if (pattern.empty()) throw bad_list("host list", list);
    out.push_back(pattern);
    return;
  }
  const size_t close = pattern.find(']', open);
  std::vector<std::string> values;
  for (const std::string& range : split_top_level(pattern.substr(open + 1, close - open - 1), list)) {
    expand_range(range, list, values);
  }
  for (const std::string& v : values) {
    expand_pattern(pattern.substr(0, open) + v + pattern.substr(close + 1), list, out);
  }
}

}  // namespace

std::vector<std::string> expand_slurm_hostlist(const std::string& list) {
  std::vector<std::string> hosts;
  for (const std::string& pattern : split_top_level(list, list)) expand_pattern(pattern, list, hosts);
  return hosts;
}

int slurm_tasks_on_node(const std::string& tasks_per_node, int node_id) {
  int node = 0;
  for (const std::string& group : split_top_level(tasks_per_node, tasks_per_node)) {
    // "4" or "4(x2)"
    const size_t paren = group.find("(x");
    const std::string count = group.substr(0, paren);
    std::string repeat = "1";
    if (paren != std::string::npos) {
      if (group.back() != ')') throw bad_list("tasks-per-node list", tasks_per_node);
      repeat = group.substr(paren + 2, group.size() - paren - 3);
    }
    if (!all_digits(count) || !all_digits(repeat)) throw bad_list("tasks-per-node list", tasks_per_node);
    node += std::stoi(repeat);
    if (node_id < node) return std::stoi(count);
  }
  throw BadInput("the Slurm tasks-per-node list '" + tasks_per_node + "' has no node " + std::to_string(node_id),
                 "run bertpt through srun, which sets SLURM_STEP_TASKS_PER_NODE and SLURM_NODEID together");
}

int slurm_job_port(const std::string& job_id) {
  if (!all_digits(job_id)) {
    throw BadInput("SLURM_JOB_ID '" + job_id + "' is not a number", "export MASTER_PORT to choose the rendezvous port");
  }
  return 15000 + int(std::stol(job_id.size() > 4 ? job_id.substr(job_id.size() - 4) : job_id));
}

}  // namespace bertpt::distributed
