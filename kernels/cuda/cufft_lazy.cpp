// cuFFT, opened on the first call instead of linked (Note [Lazy CUDA libraries],
// core/lazy_library.h): each entry point kernels/cuda/fft.cpp calls, forwarded to the library's
// own. cufft.h marks its declarations visibility("default") unless CUFFTAPI is defined: defined
// empty here, so these definitions stay hidden like those of cublas_lazy.cpp.
#define CUFFTAPI
#include <cufft.h>

#include "core/lazy_library.h"

namespace {
tocha::LazyLibrary cufft_library(TOCHA_CUFFT_SONAME, "cuFFT");
}  // namespace

TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftCreate, (cufftHandle * handle), (handle))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftDestroy, (cufftHandle plan), (plan))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftSetAutoAllocation, (cufftHandle plan, int autoAllocate),
                   (plan, autoAllocate))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftMakePlanMany64,
                   (cufftHandle plan, int rank, long long int* n, long long int* inembed, long long int istride,
                    long long int idist, long long int* onembed, long long int ostride, long long int odist,
                    cufftType type, long long int batch, size_t* workSize),
                   (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftSetWorkArea, (cufftHandle plan, void* workArea),
                   (plan, workArea))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftSetStream, (cufftHandle plan, cudaStream_t stream),
                   (plan, stream))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftExecC2C,
                   (cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction),
                   (plan, idata, odata, direction))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftExecZ2Z,
                   (cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata, int direction),
                   (plan, idata, odata, direction))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftExecR2C, (cufftHandle plan, cufftReal* idata, cufftComplex* odata),
                   (plan, idata, odata))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftExecD2Z,
                   (cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata), (plan, idata, odata))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftExecC2R, (cufftHandle plan, cufftComplex* idata, cufftReal* odata),
                   (plan, idata, odata))
TOCHA_LAZY_FORWARD(cufft_library, cufftResult, cufftExecZ2D,
                   (cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata), (plan, idata, odata))
