/* tocha_reduce.h -- C ABI of the reduce op family. Included by tocha.h; see its conventions. */
#ifndef TOCHA_REDUCE_ABI_H
#define TOCHA_REDUCE_ABI_H

#endif
