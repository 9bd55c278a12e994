// Embedding example (C++): loads a classifier trained in Lua and predicts the classes of images
// held in this program's own memory, passed to Lua without copying.
// Usage: predict_cpp CHECKPOINT IMAGES.f32 N [CLASSIFIER.lua]
//   IMAGES.f32 holds N images of 784 float32 pixels (28x28, row-major).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <tocha.hpp>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: predict_cpp CHECKPOINT IMAGES.f32 N [CLASSIFIER.lua]\n";
    return 2;
  }
  std::string script = argc > 4 ? argv[4] : std::string(EXAMPLE_DIR) + "/classifier.lua";
  int64_t n = std::stoll(argv[3]);
  std::vector<float> pixels(size_t(n) * 784);  // the host's own image buffer
  std::ifstream in(argv[2], std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(pixels.data()), std::streamsize(pixels.size() * sizeof(float)))) {
    std::cerr << "cannot read " << n << " images from " << argv[2] << "\n";
    return 1;
  }
  try {
    tocha::Interpreter lua;
    lua.run_file(script);
    lua.call("load_model", {argv[1]});
    auto images = tocha::Tensor::from_blob(pixels.data(), {n, 28, 28});
    auto classes = lua.call("predict", {images})[0].tensor();
    const double* c = classes.data<double>();
    for (int64_t i = 0; i < classes.numel(); ++i) std::cout << int(c[i]) << "\n";
  } catch (const tocha::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
