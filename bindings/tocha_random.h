/* tocha_random.h -- C ABI of the random op family. Included by tocha.h; see its conventions. */
#ifndef TOCHA_RANDOM_ABI_H
#define TOCHA_RANDOM_ABI_H

#endif
