// The data-parallel scaling model of perf/scaling.h, term by term, and `bertpt cost --scale-nodes`.
#include "perf/scaling.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::perf {
namespace {

using testing::run_bertpt;
using testing::shell_quote;
using testing::TempDir;
using testing::write_file;

TEST(Scaling, BandwidthUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gbps", "--x"), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gbit/s", "--x"), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("3.2Tbps", "--x"), 400e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("450GB/s", "--x"), 450e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100MB/s", "--x"), 100e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("8Mb/s", "--x"), 1e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1540013788.5B/s", "--x"), 1540013788.5);
  for (const char* bad : {"", "400", "fast", "-5GB/s", "400Xbps", "0GB/s", "1GB/h"}) {
    EXPECT_THROW(parse_bandwidth(bad, "--inter-node"), BadInput) << bad;
  }
}

TEST(Scaling, OneDeviceCommunicatesNothing) {
  ScalingInput in;
  in.compute_sec = 0.5;
  in.gradient_bytes = 440e6;
  const ScalingPoint p = project_step(in, Interconnect{450e9, 50e9, 5e-6});
  EXPECT_EQ(p.devices, 1);
  EXPECT_EQ(p.comm_sec, 0);
  EXPECT_EQ(p.step_sec, 0.5);
  EXPECT_EQ(p.efficiency, 1);
}

TEST(Scaling, RingWithinANodeAndTreeAcrossNodes) {
  ScalingInput in;
  in.compute_sec = 0.003;
  in.gradient_bytes = 100.0 * (1 << 20);  // 4 buckets of 25 MiB
  in.devices_per_node = 8;
  in.nodes = 4;
  const Interconnect net{400e9, 50e9, 10e-6};
  const ScalingPoint p = project_step(in, net);
  const double B = in.gradient_bytes;
  const double intra = 2.0 * 7 / 8 * B / 400e9, inter = 2.0 * 3 / 4 * B / 50e9;
  const double latency = 4 * (2 * 7 + 2 * 2) * 10e-6;
  EXPECT_EQ(p.devices, 32);
  EXPECT_NEAR(p.comm_sec, intra + inter + latency, 1e-12);
  EXPECT_NEAR(p.exposed_sec, p.comm_sec - 2.0 / 3 * 0.003, 1e-12);  // more than the backward pass hides
  EXPECT_NEAR(p.step_sec, 0.003 + p.exposed_sec, 1e-12);
  EXPECT_NEAR(p.efficiency, 0.003 / p.step_sec, 1e-12);
  // A long step hides all but the last bucket.
  in.compute_sec = 10;
  const ScalingPoint hidden = project_step(in, net);
  EXPECT_NEAR(hidden.exposed_sec, hidden.comm_sec / 4, 1e-12);
}

TEST(CostCli, ScaleNodesProjectsFromABenchFile) {
  TempDir d;
  // One device: 32 sequences in 0.4 s; 110 M parameters.
  write_file(d.file("bench.json"),
             R"({"seq_per_sec": 80.0, "seq_len": 512, "batch": 32, "world_size": 1, "gradient_bytes": 440000000})");
  auto r = run_bertpt("cost --json --bench " + shell_quote(d.file("bench.json")) +
                      " --scale-nodes 1,2 --instance p4d.24xlarge --inter-node 400Gbps --intra-node 300GB/s "
                      "--latency-us 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& rows = j["scaling"]["hardware"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
  const double B = 440e6, compute = 0.4, buckets = std::ceil(B / (25.0 * (1 << 20)));
  const double one = 2.0 * 7 / 8 * B / 300e9;
  EXPECT_NEAR(rows[0]["allreduce_sec"].get<double>(), one, 1e-12);
  EXPECT_NEAR(rows[0]["step_sec"].get<double>(), compute + std::max(one / buckets, one - 2.0 / 3 * compute), 1e-12);
  const double two = one + B / 50e9;
  EXPECT_NEAR(rows[1]["allreduce_sec"].get<double>(), two, 1e-12);
  EXPECT_EQ(rows[1]["devices"], 16);
  const double seq_per_sec = 16 * 32 / rows[1]["step_sec"].get<double>();
  EXPECT_NEAR(rows[1]["seq_per_sec"].get<double>(), seq_per_sec, 1e-9);
  EXPECT_NEAR(rows[1]["hours"].get<double>(), 1e6 * 256 / seq_per_sec / 3600, 1e-9);
  const double price = j["scaling"]["hardware"][0]["price_per_node_hour"];
  EXPECT_NEAR(rows[1]["dollars"].get<double>(), rows[1]["hours"].get<double>() * price * 2, 1e-6);
  // The table states its assumptions.
  auto table = run_bertpt("cost --bench " + shell_quote(d.file("bench.json")) +
                          " --scale-nodes 1,8 --instance p4d.24xlarge");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("assumed: fp32 gradients 440.0 MB per step"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("50 GB/s (400 Gbit/s) per node between nodes"), std::string::npos) << table.out;
  // Without --scale-nodes, a one-device bench priced as an 8-device instance scales perfectly, and
  // says so: 8 x 80 seq/s, the job's hours and dollars at that rate.
  auto plain = run_bertpt("cost --bench " + shell_quote(d.file("bench.json")) + " --instance p4d.24xlarge");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("assumed: perfect scaling of the 1-device throughput"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("(80.0 seq/s) to 8 devices"), std::string::npos) << plain.out;
  auto plain_json = run_bertpt("cost --json --bench " + shell_quote(d.file("bench.json")) +
                               " --instance p4d.24xlarge --instance p4d.24xlarge*2");
  ASSERT_EQ(plain_json.exit_code, 0) << plain_json.err;
  const auto pj = nlohmann::json::parse(plain_json.out);
  EXPECT_NEAR(pj["rows"][0]["seq_per_sec"].get<double>(), 8 * 80.0, 1e-9);
  EXPECT_NEAR(pj["rows"][0]["hours"].get<double>(), 1e6 * 256 / (8 * 80.0) / 3600, 1e-9);
  EXPECT_NEAR(pj["rows"][1]["seq_per_sec"].get<double>(), 16 * 80.0, 1e-9);
  EXPECT_NEAR(pj["rows"][1]["dollars"].get<double>(), pj["rows"][0]["dollars"].get<double>(), 1e-6);
  // A bench file of an older bertpt (no gradient_bytes) is a clear error.
  write_file(d.file("old.json"), R"({"seq_per_sec": 80.0, "seq_len": 512})");
  auto old = run_bertpt("cost --bench " + shell_quote(d.file("old.json")) + " --scale-nodes 2 --price-per-hour 1");
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_NE(old.err.find("\"world_size\""), std::string::npos) << old.err;
}

}  // namespace
}  // namespace bertpt::perf
