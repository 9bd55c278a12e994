/* Embedding example (C): the same as predict.cpp through the plain C API.
 * Usage: predict_c CHECKPOINT IMAGES.f32 N [CLASSIFIER.lua] */
#include <stdio.h>
#include <stdlib.h>

#include <tocha_embed.h>

static int fail(tocha_interp *I, int rc) {
  fprintf(stderr, "error: %s\n", rc == TOCHA_ELUA ? tocha_interp_error(I) : tocha_last_error());
  tocha_interp_free(I);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: predict_c CHECKPOINT IMAGES.f32 N [CLASSIFIER.lua]\n");
    return 2;
  }
  const char *script = argc > 4 ? argv[4] : EXAMPLE_DIR "/classifier.lua";
  int64_t n = atoll(argv[3]);
  float *pixels = malloc((size_t)n * 784 * sizeof(float));
  FILE *f = fopen(argv[2], "rb");
  if (!pixels || !f || fread(pixels, sizeof(float), (size_t)n * 784, f) != (size_t)n * 784) {
    fprintf(stderr, "cannot read %lld images from %s\n", (long long)n, argv[2]);
    return 1;
  }
  fclose(f);

  tocha_interp *I = tocha_interp_new(NULL);
  if (!I) return fail(NULL, TOCHA_EINVAL);
  int rc = tocha_interp_run_file(I, script, 0, NULL);
  if (rc) return fail(I, rc);
  tocha_value path = tocha_value_string(argv[1]), ok;
  if ((rc = tocha_interp_call(I, "load_model", &path, 1, &ok, 1))) return fail(I, rc);

  int64_t sizes[3] = {n, 28, 28};
  /* No deleter: pixels outlives every use (we free it after the interpreter). */
  tocha_tensor *images = tocha_tensor_from_blob(pixels, 3, sizes, NULL, TOCHA_DTYPE_F32, NULL, NULL);
  if (!images) return fail(I, TOCHA_EINVAL);
  tocha_value arg = tocha_value_tensor(images), classes;
  rc = tocha_interp_call(I, "predict", &arg, 1, &classes, 1);
  tocha_tensor_release(images);
  if (rc) return fail(I, rc);
  const double *c = tocha_tensor_data(classes.tensor);
  for (int64_t i = 0; i < classes.tensor->numel; ++i) printf("%d\n", (int)c[i]);
  tocha_value_clear(&classes);
  tocha_interp_free(I);
  free(pixels);
  return 0;
}
