// C ABI: dataset readers and the data loader (tocha_data.h), over core/data/ and data_loader.h.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>
#include <vector>
#include "capi.h"
#include "core/data/file_bytes.h"
#include "core/data/idx.h"
#include "core/io/atomic_file.h"
#include "data_loader.h"

using namespace tocha;
using namespace tocha::capi;

struct tocha_loader {
  explicit tocha_loader(LoaderConfig c) : loader(std::move(c)) {}
  Loader loader;
};

tocha_tensor* tocha_data_read_file(const char* path, int* gzip) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(path, "data", "path is NULL");
    bool gz = false;
    std::string bytes = data::read_file_bytes(path, "data", &gz);
    if (gzip) *gzip = gz ? 1 : 0;
    Tensor out = empty(DimVec{int64_t(bytes.size())}, DType::u8);
    if (!bytes.empty()) std::memcpy(out.raw_data(), bytes.data(), bytes.size());
    return out;
  });
}

tocha_tensor* tocha_data_read_idx(const char* path) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(path, "idx", "path is NULL");
    return data::read_idx(path);
  });
}

const char* tocha_data_list_dir(const char* path, int64_t* len) noexcept {
  static thread_local std::string out;
  int rc = guard_int([&] {
    TOCHA_CHECK(path, "data", "path is NULL");
    DIR* dir = opendir(path);
    if (!dir) fail("data", path, ": cannot list the directory: ", io::errno_str(errno));
    std::vector<std::pair<std::string, char>> entries;
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st;
      bool is_dir = stat((std::string(path) + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      entries.emplace_back(name, is_dir ? 'd' : 'f');
    }
    closedir(dir);
    std::sort(entries.begin(), entries.end());
    out.clear();
    for (const auto& e : entries) {
      out += e.second;
      out += e.first;
      out += '\0';
    }
  });
  if (rc != 0) return nullptr;
  if (len) *len = int64_t(out.size());
  return out.data();
}

tocha_loader* tocha_loader_new(int workers, int capacity, const char* path, const char* cpath, const char* spec,
                               int64_t spec_len, int ntensors, tocha_tensor* const* tensors) noexcept {
  tocha_loader* out = nullptr;
  guard_int([&] {
    TOCHA_CHECK(spec && spec_len >= 0 && ntensors >= 0 && (ntensors == 0 || tensors), "DataLoader", "bad arguments");
    LoaderConfig c;
    c.workers = workers;
    c.capacity = capacity;
    c.path = path ? path : "";
    c.cpath = cpath ? cpath : "";
    c.spec.assign(spec, size_t(spec_len));
    for (int i = 0; i < ntensors; ++i) c.inputs.push_back(arg(tensors[i], "DataLoader").get());
    out = new tocha_loader(std::move(c));
  });
  return out;
}

void tocha_loader_free(tocha_loader* l) noexcept {
  try {
    delete l;
  } catch (...) {
  }
}

int64_t tocha_loader_push(tocha_loader* l, const char* task, int64_t len) noexcept {
  int64_t id = -1;
  guard_int([&] {
    TOCHA_CHECK(l && task && len >= 0, "DataLoader", "bad arguments");
    id = l->loader.queue().push(std::string(task, size_t(len)));
  });
  return id;
}

int tocha_loader_next(tocha_loader* l) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(l, "DataLoader", "loader is NULL");
    l->loader.next();
  });
}
int tocha_loader_next_timeout(tocha_loader* l, double timeout_s) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(l, "DataLoader", "loader is NULL");
    TOCHA_CHECK(timeout_s >= 0, "DataLoader", "timeout must be >= 0 seconds, got ", timeout_s);
    l->loader.next(timeout_s);
  });
}

const char* tocha_loader_result(tocha_loader* l, int64_t* len, int* ntensors) noexcept {
  if (!l) return nullptr;
  const TaskResult& r = l->loader.current();
  if (len) *len = int64_t(r.payload.size());
  if (ntensors) *ntensors = int(r.tensors.size());
  return r.payload.data();
}

tocha_tensor* tocha_loader_result_tensor(tocha_loader* l, int i) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(l, "DataLoader", "loader is NULL");
    const TaskResult& r = l->loader.current();
    TOCHA_CHECK(i >= 0 && size_t(i) < r.tensors.size(), "DataLoader", "result tensor ", i, " out of range");
    return r.tensors[size_t(i)];
  });
}

int tocha_loader_reset(tocha_loader* l) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(l, "DataLoader", "loader is NULL");
    l->loader.queue().reset();
  });
}

int64_t tocha_loader_pending(tocha_loader* l) noexcept {
  if (!l) return -1;
  return l->loader.queue().pushed() - l->loader.queue().next();
}

int tocha_loader_worker_id(void) noexcept { return current_worker_id(); }

tocha_tensor* tocha_loader_worker_input(int i) noexcept {
  return guard_tensor([&] {
    Loader* l = current_loader();
    TOCHA_CHECK(l, "DataLoader", "not in a data-loader worker");
    TOCHA_CHECK(i >= 0 && size_t(i) < l->inputs().size(), "DataLoader", "shared tensor ", i, " out of range");
    return l->inputs()[size_t(i)];
  });
}

int tocha_loader_worker_put(const tocha_tensor* t) noexcept {
  return guard_int([&] { worker_put(arg(t, "DataLoader").get()); });
}

int tocha_loader_worker_stopping(void) noexcept {
  Loader* l = current_loader();
  return l && l->stopping() ? 1 : 0;
}
