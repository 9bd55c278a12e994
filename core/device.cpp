// Device names and parsing.
#include "core/device.h"
#include <cstdlib>

namespace tocha {

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::cpu: return "cpu";
    case DeviceType::cuda: return "cuda";
    default: return "unknown";
  }
}

std::string Device::str() const {
  if (type == DeviceType::cpu) return "cpu";
  return std::string(device_type_name(type)) + ":" + std::to_string(index);
}

bool parse_device(const std::string& s, Device* out) {
  if (s == "cpu") { *out = Device{DeviceType::cpu, 0}; return true; }
  if (s.rfind("cuda", 0) == 0) {
    if (s.size() == 4) { *out = Device{DeviceType::cuda, 0}; return true; }
    if (s[4] != ':' || s.size() == 5) return false;
    char* end = nullptr;
    long idx = std::strtol(s.c_str() + 5, &end, 10);
    if (*end || idx < 0 || idx > 1024) return false;
    *out = Device{DeviceType::cuda, int32_t(idx)};
    return true;
  }
  return false;
}

}  // namespace tocha
