#include "common/ordered_loader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bertpt {
namespace {

// Units come out in order whatever order the workers finish them in, and the end is seen once.
TEST(OrderedLoader, UnitsInOrderFromSeveralThreads) {
  OrderedLoader<std::string> loader(
      [](size_t i, size_t) -> std::optional<std::string> {
        if (i >= 50) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 300));  // finish out of order
        return "unit " + std::to_string(i);
      },
      4, 4);
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(loader.next(), "unit " + std::to_string(i));
  EXPECT_FALSE(loader.next().has_value());
  EXPECT_FALSE(loader.next().has_value());
}

// No worker runs more than `window` units ahead of the consumer: memory stays bounded.
TEST(OrderedLoader, LoadsNoFurtherAheadThanTheWindow) {
  std::atomic<size_t> highest{0};
  OrderedLoader<size_t> loader(
      [&](size_t i, size_t) -> std::optional<size_t> {
        size_t h = highest.load();
        while (i > h && !highest.compare_exchange_weak(h, i)) {
        }
        return i;
      },
      3, 3);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(loader.next(), i);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let the workers run ahead as far as allowed
    EXPECT_LE(highest.load(), i + 3);
  }
}

// A failing unit: the units before it are delivered, then its exception reaches the consumer.
TEST(OrderedLoader, AnErrorArrivesAfterTheUnitsBeforeIt) {
  OrderedLoader<int> loader(
      [](size_t i, size_t) -> std::optional<int> {
        if (i == 5) throw std::runtime_error("unit 5 is damaged");
        return int(i);
      },
      2, 2);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(loader.next(), i);
  EXPECT_THROW(loader.next(), std::runtime_error);
}

// One thread: the load function is called in order, as a sequential stream needs.
TEST(OrderedLoader, OneThreadLoadsInOrder) {
  size_t expected = 0;
  bool in_order = true;
  OrderedLoader<size_t> loader(
      [&](size_t i, size_t) -> std::optional<size_t> {
        in_order = in_order && i == expected++;
        return i < 20 ? std::optional<size_t>(i) : std::nullopt;
      },
      1, 3);
  size_t n = 0;
  while (loader.next()) ++n;
  EXPECT_EQ(n, 20u);
  EXPECT_TRUE(in_order);
}

// Destroying the loader while workers wait on the window does not hang.
TEST(OrderedLoader, DestroyedEarlyStopsItsWorkers) {
  auto loader = std::make_unique<OrderedLoader<int>>([](size_t i, size_t) -> std::optional<int> { return int(i); }, 4,
                                                     4);
  EXPECT_EQ(loader->next(), 0);
  loader.reset();
  SUCCEED();
}

// Turns are taken in index order whatever order the workers arrive in, and a turn that throws still
// passes on: the loads after it are not left waiting.
TEST(InOrderTurns, InIndexOrderAndPassedOnAfterAThrow) {
  InOrderTurns turns;
  std::vector<size_t> order;
  std::vector<std::thread> threads;
  for (size_t i : {4u, 2u, 0u, 3u, 1u}) {
    threads.emplace_back([&, i] {
      try {
        turns.take(i, [&] {
          order.push_back(i);
          if (i == 2) throw std::runtime_error("turn 2");
        });
      } catch (const std::runtime_error&) {
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace bertpt
