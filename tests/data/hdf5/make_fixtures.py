#!/usr/bin/python3
# Writes the HDF5 fixtures of tests/lua/test_hdf5.lua with h5py (apt-get install python3-h5py):
#   types.h5      one dataset per numeric type (both signs, every width, big-endian ones, float16),
#                 a scalar, an empty dataset, and types hdf5 refuses (string, bool, compound)
#   structure.h5  nested groups, a 3-D dataset for partial reads, chunked + gzip (+ shuffle) data
# Run from this folder: /usr/bin/python3 make_fixtures.py. The values are simple formulas that the
# Lua test rebuilds (written next to each dataset below); all arrays are C order (row-major).
import h5py
import numpy as np

# No timestamps (track_times=False) and the oldest file format, so that a rerun gives the same bytes.
def new_file(name):
    return h5py.File(name, 'w', track_order=False, libver='earliest')

with new_file('types.h5') as f:
    f.create_dataset('int8', data=np.array([[-128, -1, 0], [1, 2, 127]], dtype='<i1'), track_times=False)
    f.create_dataset('uint8', data=np.array([[0, 1, 2], [128, 254, 255]], dtype='<u1'), track_times=False)
    f.create_dataset('int16', data=np.array([[-32768, -1, 0], [1, 300, 32767]], dtype='<i2'), track_times=False)
    f.create_dataset('uint16', data=np.array([[0, 1, 40000], [65535, 7, 8]], dtype='<u2'), track_times=False)
    f.create_dataset('int32', data=np.array([[-2**31, -1, 0], [1, 70000, 2**31 - 1]], dtype='<i4'), track_times=False)
    f.create_dataset('uint32', data=np.array([[0, 1, 2**32 - 1], [2**31, 5, 6]], dtype='<u4'), track_times=False)
    f.create_dataset('int64', data=np.array([[-2**62, -1, 0], [1, 2**40 + 3, 2**53 + 2]], dtype='<i8'), track_times=False)
    f.create_dataset('uint64', data=np.array([[0, 1, 2**40], [2**62, 5, 6]], dtype='<u8'), track_times=False)
    f.create_dataset('uint64_big', data=np.array([1, 2**63 + 5], dtype='<u8'), track_times=False)
    f.create_dataset('float32', data=np.array([[0.5, -1.25, 3.0], [1e-3, 1e30, -0.0]], dtype='<f4'), track_times=False)
    f.create_dataset('float64', data=np.array([[0.1, -2.5, 1e-300], [1e300, 3.0, -7.75]], dtype='<f8'), track_times=False)
    f.create_dataset('float16', data=np.array([0.5, -2.0, 65504.0, 0.000061035156], dtype='<f2'), track_times=False)
    # Big-endian storage: HDF5 converts to the native order on read.
    f.create_dataset('be_int32', data=np.array([1, -2, 300000], dtype='>i4'), track_times=False)
    f.create_dataset('be_float64', data=np.array([1.5, -0.25, 1e10], dtype='>f8'), track_times=False)
    f.create_dataset('scalar', data=np.float64(2.5), track_times=False)
    f.create_dataset('empty', data=np.zeros((0, 3), dtype='<f4'), track_times=False)
    f.create_dataset('string', data=np.bytes_('hello'), track_times=False)
    f.create_dataset('bool', data=np.array([True, False]), track_times=False)
    f.create_dataset('compound', data=np.array([(1, 2.0)], dtype=[('a', '<i4'), ('b', '<f8')]), track_times=False)

with new_file('structure.h5') as f:
    # images[n, c, h, w] = (n * 18 + c * 9 + h * 3 + w) % 256, uint8
    f.create_dataset('train/images', data=(np.arange(4 * 2 * 3 * 3) % 256).astype('<u1').reshape(4, 2, 3, 3),
                     track_times=False)
    f.create_dataset('train/labels', data=np.array([3, 1, 4, 1], dtype='<i8'), track_times=False)
    f.create_dataset('a/b/c/deep', data=np.arange(6, dtype='<f4').reshape(2, 3) - 2.5, track_times=False)
    f.create_group('emptygroup', track_order=False)
    # cube[i, j, k] = (i * 30 + j * 6 + k) * 0.5 - 7, float64 4x5x6, contiguous
    cube = np.arange(4 * 5 * 6, dtype='<f8').reshape(4, 5, 6) * 0.5 - 7
    f.create_dataset('cube', data=cube, track_times=False)
    # the same values chunked (2, 3, 4) with shuffle + gzip level 4
    f.create_dataset('cube_chunked', data=cube, chunks=(2, 3, 4), compression='gzip', compression_opts=4,
                     shuffle=True, track_times=False)
    # chunked[i, j] = i * 7 + j, int32 10x7, chunks (3, 4), gzip 9, growable in dim 1 (maxshape None)
    f.create_dataset('chunked', data=np.arange(70, dtype='<i4').reshape(10, 7), chunks=(3, 4),
                     compression='gzip', compression_opts=9, maxshape=(None, 7), track_times=False)
