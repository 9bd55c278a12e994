/* tocha_index.h -- C ABI of the index op family. Included by tocha.h; see its conventions. */
#ifndef TOCHA_INDEX_ABI_H
#define TOCHA_INDEX_ABI_H

#endif
