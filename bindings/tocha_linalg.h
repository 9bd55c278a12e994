/* tocha_linalg.h -- C ABI of the linalg op family. Included by tocha.h; see its conventions. */
#ifndef TOCHA_LINALG_ABI_H
#define TOCHA_LINALG_ABI_H

#endif
