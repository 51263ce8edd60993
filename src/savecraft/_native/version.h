/*
 * The one interface version of every savecraft._native module. Each module
 * exports it as VERSION; savecraft.compiled runs native code only when every
 * module is present with this very number (a stale or partial build would
 * otherwise run a silent mix of old and new code). Bump it with any change of
 * a function's signature or behaviour in any module, and VERSION in
 * savecraft/compiled.py with it.
 */
#ifndef SAVECRAFT_NATIVE_VERSION_H
#define SAVECRAFT_NATIVE_VERSION_H
#define SAVECRAFT_NATIVE_VERSION 8

/* The definition of a module that keeps no state at all (rle, bytewise): multi-phase
   initialisation (PEP 489), so it may be loaded in any interpreter, and no GIL needed (each
   call works on its own buffers). NAME is the module's last name; the file defines `methods`. */
#ifdef Py_mod_multiple_interpreters
#define SAVECRAFT_SLOT_INTERPRETERS {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#else
#define SAVECRAFT_SLOT_INTERPRETERS
#endif
#ifdef Py_mod_gil
#define SAVECRAFT_SLOT_NO_GIL {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#else
#define SAVECRAFT_SLOT_NO_GIL
#endif
#define SAVECRAFT_STATELESS_MODULE(NAME, DOC)                                              \
    static int exec_module(PyObject *m)                                                     \
    {                                                                                       \
        return PyModule_AddIntConstant(m, "VERSION", SAVECRAFT_NATIVE_VERSION);             \
    }                                                                                       \
    static PyModuleDef_Slot slots[] = {                                                     \
        {Py_mod_exec, exec_module}, SAVECRAFT_SLOT_INTERPRETERS SAVECRAFT_SLOT_NO_GIL {0, NULL}, \
    };                                                                                      \
    static struct PyModuleDef module = {                                                    \
        PyModuleDef_HEAD_INIT, "savecraft._native." #NAME, DOC, 0, methods, slots, NULL, NULL, NULL, \
    };                                                                                      \
    PyMODINIT_FUNC PyInit_##NAME(void) { return PyModuleDef_Init(&module); }
#endif
