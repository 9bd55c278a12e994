// The data loader's bounded, ordered queue (core/data/task_queue.h): results come back in task
// order whatever order workers finish in, no worker runs more than `capacity` tasks ahead of
// the consumer, reset drops stale work, close wakes everyone.
#include <catch2/catch.hpp>
#include <atomic>
#include <thread>
#include "core/data/task_queue.h"

using tocha::TaskQueue;
using tocha::TaskResult;

static TaskResult result(const std::string& s) {
  TaskResult r;
  r.payload = s;
  return r;
}

TEST_CASE("results are delivered in task order", "[data]") {
  TaskQueue q(4);
  for (int i = 0; i < 4; ++i) q.push("t" + std::to_string(i));
  int64_t ids[4];
  std::string tasks[4];
  for (int i = 0; i < 4; ++i) REQUIRE(q.claim(&ids[i], &tasks[i]));
  CHECK(tasks[2] == "t2");
  q.complete(ids[3], result("r3"));
  q.complete(ids[1], result("r1"));
  TaskResult r;
  CHECK(q.wait_next(&r, 1) == 0);  // task 0 is not done yet
  q.complete(ids[0], result("r0"));
  q.complete(ids[2], result("r2"));
  for (int i = 0; i < 4; ++i) {
    REQUIRE(q.wait_next(&r, 100) == 1);
    CHECK(r.payload == "r" + std::to_string(i));
  }
  CHECK_THROWS_WITH(q.wait_next(&r, 1), Catch::Contains("no batch was requested"));
}

TEST_CASE("workers stay within capacity of the consumer", "[data]") {
  TaskQueue q(2);
  for (int i = 0; i < 6; ++i) q.push("t");
  int64_t id;
  std::string task;
  REQUIRE(q.claim(&id, &task));
  REQUIRE(q.claim(&id, &task));
  std::atomic<bool> claimed{false};
  std::thread worker([&] {
    int64_t i;
    std::string t;
    if (q.claim(&i, &t)) claimed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK_FALSE(claimed.load());  // task 2 must wait until task 0 is consumed
  q.complete(0, result("a"));
  q.complete(1, result("b"));
  TaskResult r;
  REQUIRE(q.wait_next(&r, 100) == 1);
  worker.join();
  CHECK(claimed.load());
}

TEST_CASE("reset drops stale results and close wakes waiting workers", "[data]") {
  TaskQueue q(3);
  q.push("a");
  q.push("b");
  int64_t id;
  std::string task;
  REQUIRE(q.claim(&id, &task));
  q.reset();
  q.complete(id, result("stale"));
  int64_t next = q.push("c");
  CHECK(next == 2);
  REQUIRE(q.claim(&id, &task));
  CHECK(task == "c");
  q.complete(id, result("fresh"));
  TaskResult r;
  REQUIRE(q.wait_next(&r, 100) == 1);
  CHECK(r.payload == "fresh");
  std::thread worker([&] {
    int64_t i;
    std::string t;
    CHECK_FALSE(q.claim(&i, &t));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  q.close();
  worker.join();
  q.fail("worker could not start");
}

TEST_CASE("a failed start fails the consumer's wait", "[data]") {
  TaskQueue q(1);
  q.push("a");
  q.fail("[DataLoader] worker 1 could not start: boom");
  TaskResult r;
  CHECK_THROWS_WITH(q.wait_next(&r, 100), Catch::Contains("could not start: boom"));
}
