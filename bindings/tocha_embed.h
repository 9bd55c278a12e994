/* tocha_embed.h -- the embedding API: run Tocha's Lua interpreter inside a C or C++ host.
 *
 * A host creates interpreters, runs Lua files and strings in them, calls Lua functions with
 * numbers, strings and tensors, and reads back results, globals and errors. Tensors cross the
 * boundary without copies (tocha_tensor_from_blob / tocha_tensor_data in tocha_tensor.h).
 *
 * Threads: interpreters are independent; several may live in one process, each used by one
 * thread at a time (calls on one interpreter must not overlap). Tensors may be passed from one
 * interpreter to another: they are reference counted C++ objects, not Lua values.
 *
 * Errors: every function returns TOCHA_OK (0) or an error code and never aborts the host. A Lua
 * error gives TOCHA_ELUA and tocha_interp_error() returns its message with a traceback (frames
 * inside Tocha's bindings hidden). NULL arguments, wrong value types and interpreters that were
 * freed give TOCHA_EINVAL with the reason in tocha_last_error().
 *
 * Ownership: tensors passed in are borrowed (the interpreter takes its own reference); tensors
 * returned in a tocha_value carry one reference the host drops with tocha_value_clear() (or
 * tocha_tensor_release). Returned strings belong to the interpreter and stay valid until its next
 * call returns (so they may be passed to that call: as a name, code or argument). */
#ifndef TOCHA_EMBED_H
#define TOCHA_EMBED_H

#include "tocha.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { TOCHA_ELUA = 4 };

typedef struct tocha_interp tocha_interp;
struct lua_State;

enum { TOCHA_VALUE_NIL = 0, TOCHA_VALUE_BOOLEAN, TOCHA_VALUE_NUMBER, TOCHA_VALUE_STRING, TOCHA_VALUE_TENSOR };

/* A Lua value crossing the boundary: type says which field holds it. */
typedef struct tocha_value {
  int type;             /* TOCHA_VALUE_* */
  int boolean;          /* TOCHA_VALUE_BOOLEAN: 0 or 1 */
  double number;        /* TOCHA_VALUE_NUMBER */
  const char *string;   /* TOCHA_VALUE_STRING (NUL-terminated; see ownership above) */
  tocha_tensor *tensor; /* TOCHA_VALUE_TENSOR */
} tocha_value;

/* Value constructors (no allocation; the tensor is borrowed). */
TOCHA_API tocha_value tocha_value_nil(void) TOCHA_NOEXCEPT;
TOCHA_API tocha_value tocha_value_number(double x) TOCHA_NOEXCEPT;
TOCHA_API tocha_value tocha_value_string(const char *s) TOCHA_NOEXCEPT;
TOCHA_API tocha_value tocha_value_tensor(tocha_tensor *t) TOCHA_NOEXCEPT;
/* Drops the tensor reference a result holds and resets v to nil. */
TOCHA_API void tocha_value_clear(tocha_value *v) TOCHA_NOEXCEPT;

/* A new interpreter with the standard libraries and `torch` loaded. lua_dir is where the Lua
 * modules are (NULL: $TOCHA_LUA_PATH, else the install prefix of libtocha.so, else the source
 * tree it was built from). NULL on failure (tocha_last_error() says why). */
TOCHA_API tocha_interp *tocha_interp_new(const char *lua_dir) TOCHA_NOEXCEPT;
/* Closes the interpreter; later calls with this pointer give TOCHA_EINVAL. NULL is ignored. */
TOCHA_API void tocha_interp_free(tocha_interp *interp) TOCHA_NOEXCEPT;

/* Runs Lua source (chunkname names it in errors; NULL: "=(embedded)"). */
TOCHA_API int tocha_interp_run_string(tocha_interp *interp, const char *code, const char *chunkname) TOCHA_NOEXCEPT;
/* Runs a Lua file with the global `arg` set to {[0]=path, argv[0], ...} and argv as the chunk's `...`,
 * as the tocha executable does. */
TOCHA_API int tocha_interp_run_file(tocha_interp *interp, const char *path, int argc, const char *const *argv) TOCHA_NOEXCEPT;
/* Calls the global function `name` (dotted paths like "model.predict" allowed) with nargs
 * arguments; its first nresults results are stored in results (missing ones are nil; all nil when
 * the call fails). results may be the args array itself (x = f(x)). */
TOCHA_API int tocha_interp_call(tocha_interp *interp, const char *name, const tocha_value *args, int nargs,
                                tocha_value *results, int nresults) TOCHA_NOEXCEPT;
/* Sets / gets a global (tensors, numbers, strings, booleans, nil). Getting any other Lua type
 * (a table, a function...) gives TOCHA_EINVAL; *value is nil after any failure. */
TOCHA_API int tocha_interp_set_global(tocha_interp *interp, const char *name, const tocha_value *value) TOCHA_NOEXCEPT;
TOCHA_API int tocha_interp_get_global(tocha_interp *interp, const char *name, tocha_value *value) TOCHA_NOEXCEPT;
/* The message and traceback of the last Lua error in this interpreter ("" if none). */
TOCHA_API const char *tocha_interp_error(const tocha_interp *interp) TOCHA_NOEXCEPT;
/* The underlying lua_State, for hosts that use the Lua C API directly (same threading rules). */
TOCHA_API struct lua_State *tocha_interp_lua_state(tocha_interp *interp) TOCHA_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
