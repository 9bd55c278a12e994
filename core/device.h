// Devices: cpu, and cuda:N when the CUDA kernels are built. The enum order is part of the C ABI.
#pragma once
#include <cstdint>
#include <string>

namespace tocha {

enum class DeviceType : int32_t { cpu = 0, cuda = 1, COUNT };
constexpr int kNumDeviceTypes = int(DeviceType::COUNT);

struct Device {
  DeviceType type = DeviceType::cpu;
  int32_t index = 0;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::cpu; }
  std::string str() const;  // "cpu", "cuda:0"
};

const char* device_type_name(DeviceType t);
bool parse_device(const std::string& s, Device* out);  // "cpu", "cuda", "cuda:1"

}  // namespace tocha
