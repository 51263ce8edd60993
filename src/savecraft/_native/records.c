/*
 * savecraft._native.records: the compiled backend of record descriptions.
 *
 * An Angband save is mostly repeated records: hundreds of object records (40
 * fields, six of them strings, array sizes set by an earlier block), monster
 * memory, messages, history, monsters, stores. Read field by field in Python a
 * record costs ~6-10 us, most of it building the model object; here the whole
 * 4.2 parse takes a fifth of the pure path's time and a build an eighth
 * (measured alternating SAVECRAFT_PURE=1 and not, medians).
 *
 * savecraft/layout/native.py derives a record program (one field code per
 * model slot, below) from each description that the codes can express, so
 * this is a backend of the same one description: no record is read with code
 * of its own here (the 4.2 object record was, until its derived program came
 * within 1.1x of it: a 4.2 parse 0.98x, a build 1.04x, best of alternating
 * runs). Every reader reads the canonical case only and answers None otherwise
 * (bytes past the end, a string over its limit or not UTF-8, a "has" byte other than
 * 0 or 1): the generated Python then reads the same bytes and gives the same
 * model or the exact error. The writers likewise answer None for anything the
 * Python writer would write differently or refuse. Tests hold the two paths
 * to each other on every real sample.
 *
 * Model objects (dataclasses with slots) are filled and read at their slots'
 * offsets, taken from the slots' member descriptors when the classes are handed
 * over. The supported APIs cost too much here: PyMember_SetOne / GetOne (or
 * the descriptors' own tp_descr_set) make a record 1.36x slower to read and
 * 1.21x to write, and a Vanilla 4.2 parse ~1.2x, past the 1.1x its benchmark
 * may lose. So the offsets stay, guarded:
 *   - each is checked once: a member descriptor of that class (or a base), an
 *     object slot (T_OBJECT_EX), writable;
 *   - a slot is read only on an object whose class was checked first
 *     (PyObject_TypeCheck), and written only on an object just allocated here,
 *     which no other code can see yet;
 *   - the module declares that it needs the GIL (Py_mod_gil), so a
 *     free-threaded interpreter turns the GIL on while it is loaded;
 *   - it is CPython's object layout: elsewhere (PyPy) it does not compile, and
 *     savecraft runs its pure paths.
 * All caches live in the module state (PEP 489 multi-phase initialisation).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include <structmember.h>

#include "version.h"

#ifdef PYPY_VERSION
#error "the object records are filled at CPython slot offsets: the pure Python paths run instead"
#endif

/* Ints of fields are mostly small: -256..1023 come from a table made once (a reference
 * count increment instead of a call), the rest from PyLong_FromLong. */
#define INT_LO (-256)
#define INT_HI 1023

/* Short ASCII strings recur (object kinds, monster races: "Flask of Oil" a hundred
 * times in a save): the last one decoded for each of 512 hash slots is kept and
 * handed out again, saving an allocation and a free per repeat. Bytes too. */
#define STR_CACHE 512
#define STR_CACHE_MAX 40

/* The (i16, u8) pairs of a T list (an object's resistance levels and flags: 25 of them per
 * 4.0 object, nearly all (0, 0) or (0, 1)) of a small level and flags: the tuple made for
 * each is kept and handed out again (tuples are immutable), sparing 25 allocations and frees
 * per object record (a fifth of a Vanilla 4.0 parse, perf). */
#define PAIR_LO (-4)
#define PAIR_HI 11
#define PAIR_FLAGS 16

typedef struct {
    PyObject *ints[INT_HI - INT_LO + 1];
    PyObject *str_cache[STR_CACHE];
    PyObject *bytes_cache[STR_CACHE];
    PyObject *pairs[(PAIR_HI - PAIR_LO + 1) * PAIR_FLAGS];
} State;

static inline State *
state_of(PyObject *module)
{
    return (State *)PyModule_GetState(module);
}

static inline PyObject *
new_int(State *st, long v)
{
    if (v >= INT_LO && v <= INT_HI)
        return Py_NewRef(st->ints[v - INT_LO]);
    return PyLong_FromLong(v);
}

#define INT(expr) (new_int(st, (long)(expr)))

/* -- slots ---------------------------------------------------------------------------------- */

/* The offsets of the object slots of `tp` that the member descriptors in `slots` stand for
   (-1 for None where a field of the file is no slot: a count). */
static int
slot_offsets(PyTypeObject *tp, PyObject *slots, Py_ssize_t *out, Py_ssize_t n, int none_ok)
{
    if (!PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) != n) {
        PyErr_Format(PyExc_ValueError, "%zd slot descriptors expected", n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PyTuple_GET_ITEM(slots, i);
        if (d == Py_None && none_ok) {
            out[i] = -1;
            continue;
        }
        if (!PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
            PyErr_SetString(PyExc_TypeError, "a slot descriptor expected");
            return -1;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY) || !PyType_IsSubtype(tp, PyDescr_TYPE(d))) {
            PyErr_SetString(PyExc_TypeError, "a writable object slot of the class expected");
            return -1;
        }
        out[i] = m->offset;
    }
    return 0;
}

/* A new instance of tp with its slots set to vals (references stolen, all of them). */
static PyObject *
fill(PyTypeObject *tp, const Py_ssize_t *offsets, PyObject **vals, Py_ssize_t n)
{
    PyObject *obj = tp->tp_alloc(tp, 0);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (obj == NULL || offsets[i] < 0)
            Py_DECREF(vals[i]);
        else
            *(PyObject **)((char *)obj + offsets[i]) = vals[i];
    }
    return obj;
}

/* The value of a slot (borrowed; NULL when not set) of an object of the slot's class. */
static inline PyObject *
get(Py_ssize_t offset, PyObject *obj)
{
    return *(PyObject **)((char *)obj + offset);
}

/* -- reading ------------------------------------------------------------------------------- */

typedef struct {
    State *st;
    const uint8_t *p;
    Py_ssize_t pos, end;
} Cursor;

static inline int need(Cursor *c, Py_ssize_t n) { return n <= c->end - c->pos; }
static inline unsigned rd_u8(Cursor *c) { return c->p[c->pos++]; }
static inline unsigned rd_u16(Cursor *c) {
    unsigned v = (unsigned)c->p[c->pos] | ((unsigned)c->p[c->pos + 1] << 8);
    c->pos += 2;
    return v;
}
static inline int rd_i16(Cursor *c) { return (int16_t)rd_u16(c); }

/* Which cache slot: a few bytes and the length are enough (a hit is checked byte by byte). */
static inline uint32_t
slot_hash(const uint8_t *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    uint32_t h = (uint32_t)n * 2654435761u;
    h ^= (uint32_t)s[0] * 16777619u ^ (uint32_t)s[n / 2] * 40503u ^ (uint32_t)s[n - 1] * 769u;
    if (n > 3)
        h ^= (uint32_t)s[1] * 97u ^ (uint32_t)s[n - 2] * 7919u;
    return h ^ (h >> 15);
}

/* The cached string for bytes s[0:n], or a new one (NULL with an exception: not UTF-8). */
static PyObject *
cached_str(State *st, const uint8_t *s, Py_ssize_t n)
{
    PyObject **slot = &st->str_cache[slot_hash(s, n) % STR_CACHE];
    PyObject *old = *slot; /* only ASCII strings are kept: equal bytes are then equal text */
    if (old != NULL && PyUnicode_GET_LENGTH(old) == n && memcmp(PyUnicode_1BYTE_DATA(old), s, (size_t)n) == 0)
        return Py_NewRef(old);
    PyObject *text = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
    if (text != NULL && PyUnicode_IS_ASCII(text))
        Py_XSETREF(*slot, Py_NewRef(text));
    return text;
}

/* A NUL-terminated UTF-8 string of at most `limit` bytes; NULL (no exception) when not so. */
static PyObject *
rd_str(Cursor *c, Py_ssize_t limit)
{
    const uint8_t *s = c->p + c->pos;
    Py_ssize_t room = c->end - c->pos;
    const uint8_t *nul = memchr(s, 0, (size_t)(room < limit + 1 ? room : limit + 1));
    if (nul == NULL)
        return NULL;
    Py_ssize_t n = nul - s;
    PyObject *text = n <= STR_CACHE_MAX ? cached_str(c->st, s, n)
                                        : PyUnicode_DecodeUTF8((const char *)s, n, NULL);
    if (text == NULL) {
        PyErr_Clear();
        return NULL;
    }
    c->pos += n + 1;
    return text;
}

/* A NUL-terminated Latin-1 string of at most `limit` bytes; NULL (no exception) when not so. */
static PyObject *
rd_latin1(Cursor *c, Py_ssize_t limit)
{
    const uint8_t *s = c->p + c->pos;
    Py_ssize_t room = c->end - c->pos;
    const uint8_t *nul = memchr(s, 0, (size_t)(room < limit + 1 ? room : limit + 1));
    if (nul == NULL)
        return NULL;
    Py_ssize_t n = nul - s, k = 0;
    while (k < n && s[k] < 0x80)
        k++;
    /* ASCII (the common case) is the same text in UTF-8: the cache of rd_str serves it */
    PyObject *text = k == n && n <= STR_CACHE_MAX ? cached_str(c->st, s, n)
                                                  : PyUnicode_DecodeLatin1((const char *)s, n, NULL);
    if (text == NULL) {
        PyErr_Clear();
        return NULL;
    }
    c->pos += n + 1;
    return text;
}

static PyObject *
cached_bytes(State *st, const uint8_t *s, Py_ssize_t n)
{
    PyObject *b;
    if (n <= STR_CACHE_MAX) {
        PyObject **slot = &st->bytes_cache[slot_hash(s, n) % STR_CACHE];
        if (*slot != NULL && PyBytes_GET_SIZE(*slot) == n && memcmp(PyBytes_AS_STRING(*slot), s, (size_t)n) == 0) {
            b = Py_NewRef(*slot);
        } else if ((b = PyBytes_FromStringAndSize((const char *)s, n)) != NULL) {
            Py_XSETREF(*slot, Py_NewRef(b));
        }
    } else {
        b = PyBytes_FromStringAndSize((const char *)s, n);
    }
    return b;
}

static PyObject *
rd_bytes(Cursor *c, Py_ssize_t n)
{
    if (!need(c, n))
        return NULL;
    PyObject *b = cached_bytes(c->st, c->p + c->pos, n);
    c->pos += n;
    return b;
}

/* n i32 (a PWMAngband object's modifiers: an array of 32-bit integers), as a list. */
static PyObject *
rd_i32_list(Cursor *c, Py_ssize_t n)
{
    State *st = c->st;
    if (n > PY_SSIZE_T_MAX / 4 || !need(c, 4 * n))
        return NULL;
    PyObject *lst = PyList_New(n);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint8_t *q = c->p + c->pos;
        int32_t x = (int32_t)((uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) |
                              ((uint32_t)q[3] << 24));
        c->pos += 4;
        PyObject *v = INT(x);
        if (v == NULL) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, i, v);
    }
    return lst;
}

static PyObject *
rd_i16_list(Cursor *c, Py_ssize_t n)
{
    State *st = c->st;
    if (!need(c, 2 * n))
        return NULL;
    PyObject *lst = PyList_New(n);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = INT(rd_i16(c));
        if (v == NULL) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, i, v);
    }
    return lst;
}

/* The pair (level, flags) of a T list: a kept one where both are small (see PAIR_LO). */
static PyObject *
new_pair(State *st, int level, unsigned flags)
{
    PyObject **slot = NULL;
    if (level >= PAIR_LO && level <= PAIR_HI && flags < PAIR_FLAGS) {
        slot = &st->pairs[(level - PAIR_LO) * PAIR_FLAGS + (int)flags];
        if (*slot != NULL)
            return Py_NewRef(*slot);
    }
    PyObject *a = INT(level), *b = a == NULL ? NULL : INT(flags);
    PyObject *pair = b == NULL ? NULL : PyTuple_Pack(2, a, b);
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (pair != NULL && slot != NULL)
        *slot = Py_NewRef(pair);
    return pair;
}

/*
 * Record programs: the repeated records of a save (objects, monster memory,
 * messages, history, monsters, stores) described as a string of field codes,
 * one per slot of the model class, compiled once per class and sizes:
 *
 *   B H h I i   u8 u16 i16 u32 i32, as an int
 *   s           a NUL-terminated UTF-8 string of at most `arg` bytes
 *   a           a NUL-terminated Latin-1 string of at most `arg` bytes (3.1 and 3.2's text)
 *   y           `arg` bytes
 *   l           a list of `arg` i16
 *   j           a list of `arg` i32 (-1: the last count, as l)
 *   c           a list of i16 after its u8 count
 *   T           a list of `arg` (i16, u8) tuples
 *   C L         a u8 count of at most `arg` (no slot: its descriptor is None), then lists
 *               of that many i16 (each L; the writer checks they are all that long)
 *   r           a nested record of the program `arg`
 *   n N         a list of records of the program `arg` after its u8 / u16 count
 *   R           a list of records of the program `arg` up to the end of the bytes read
 *               (a block's stores, each town's, until the block ends)
 *   M           a list of `count` records of a program (args: program, count)
 *   S           a list of `count` strings of at most `limit` bytes (args: count, limit)
 *   A           the same, Latin-1 strings (PWMAngband's player history lines)
 *   D           a field of the model the record does not store: its default (args: the
 *               value, and 1 where it is a factory to call for each record)
 *   Q           no slot: a count of kind B H or I, at most `most`, of the lists after it whose
 *               count is -1 (y l M S; also after C) (args: kind, most, the place of the
 *               first of those lists, whose length the writer writes)
 *   K           no slot: a constant the game requires (args: value, kind B H h I or i)
 *   ?           no slot: a "has" byte of 0 or 1; with 0 the next code's value is None
 *               and nothing of it is stored
 *   !           no slot: the next `n` codes are stored only when the value of code `index`
 *               equals (or, negated, differs from) a constant; None otherwise
 *               (args: index, constant, negated, n)
 *   ~           no slot: as !, but the codes not stored hold the values given (args: those of
 *               !, and a tuple of one value per code governed: the model's defaults, a When
 *               with defaults); the writer writes them exactly when the condition holds
 *   z           a field stored only under a condition that does not hold: None
 *   P p         two interleaved columns of `count` u8 or i16 (P's slot the first, p's the
 *               second; each a list of ints or, u8, bytes) (P's args: count, column bits)
 *   U           records of a program until `stop` stands in place of their first field
 *               (a string of at most `limit` bytes, or a u8) (args: program, stop, limit)
 *   E e         records of a program up to the one whose attribute `name` is true (where
 *               that attribute is "not self.<field>" or "self.<a> == 0 and self.<b> == 0":
 *               the one whose fields, at `indexes`, are all empty): E's slot the list, e's
 *               the end record (E's args: program, name, an index, a tuple of indexes, or -1)
 *   G g         one list stored as two lists, each ended by the u8 `stop` in place of its
 *               first field; g (no slot) sets the fields of its program on the records of
 *               G's list, one by one (args: program, stop; g's also G's index)
 *
 * Every code reads the canonical form only (the writer derives each count from
 * the list it writes, with the same width), and anything else makes the whole
 * call return None, so the Python reader takes over for an exact error or the
 * same model.
 */
#define PROG_MAX 64

typedef struct Prog {
    PyObject *module; /* whose state (caches, object classes) the program runs with */
    PyTypeObject *type;
    Py_ssize_t n;
    char ops[PROG_MAX];
    Py_ssize_t arg[PROG_MAX];
    Py_ssize_t arg2[PROG_MAX];  /* a second number: a limit, a kind, column bits, an index */
    struct Prog *sub[PROG_MAX];
    PyObject *subref[PROG_MAX];
    PyObject *obj[PROG_MAX];    /* a constant: a stop value, an attribute name, a value compared with */
    Py_ssize_t slots[PROG_MAX];
} Prog;

#define PROG_CAPSULE "savecraft._native.records.Prog"

static void
prog_free(PyObject *capsule)
{
    Prog *pg = PyCapsule_GetPointer(capsule, PROG_CAPSULE);
    if (pg == NULL)
        return;
    Py_XDECREF(pg->module);
    Py_XDECREF(pg->type);
    for (Py_ssize_t i = 0; i < PROG_MAX; i++) {
        Py_XDECREF(pg->subref[i]);
        Py_XDECREF(pg->obj[i]);
    }
    PyMem_Free(pg);
}

/* Does the program start with a u8 (a field, or a constant), which a stop byte can stand for? */
static int
starts_with_u8(const Prog *pg)
{
    return pg->n > 0 && (pg->ops[0] == 'B' || (pg->ops[0] == 'K' && pg->arg2[0] == 'B'));
}

/* A program of this module (one made by another copy of it would use another state). */
static Prog *
prog_of(PyObject *module, PyObject *capsule)
{
    Prog *pg = PyCapsule_GetPointer(capsule, PROG_CAPSULE);
    if (pg != NULL && pg->module != module) {
        PyErr_SetString(PyExc_ValueError, "a program of another module");
        return NULL;
    }
    return pg;
}

/* record_program(cls, slots, ops, args) -> capsule; args: one per op (an int, a program, or a
   tuple of such and constants). */
static PyObject *
record_program(PyObject *module, PyObject *args)
{
    PyTypeObject *tp;
    PyObject *slots, *pargs;
    const char *ops;
    Py_ssize_t nops;
    if (!PyArg_ParseTuple(args, "O!Os#O!", &PyType_Type, &tp, &slots, &ops, &nops, &PyTuple_Type, &pargs))
        return NULL;
    if (nops > PROG_MAX || PyTuple_GET_SIZE(pargs) != nops) {
        PyErr_SetString(PyExc_ValueError, "one argument per field code, at most 64 fields");
        return NULL;
    }
    Prog *pg = PyMem_Calloc(1, sizeof(Prog));
    if (pg == NULL)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(pg, PROG_CAPSULE, prog_free);
    if (capsule == NULL) {
        PyMem_Free(pg);
        return NULL;
    }
    pg->module = Py_NewRef(module);
    pg->n = nops;
    pg->type = (PyTypeObject *)Py_NewRef(tp);
    if (slot_offsets(tp, slots, pg->slots, nops, 1) < 0)
        goto fail;
    for (Py_ssize_t i = 0; i < nops; i++) {
        PyObject *a = PyTuple_GET_ITEM(pargs, i);
        char op = ops[i];
        pg->ops[i] = op;
        if (op == 0 || strchr("BHhIisayljTcCLrnNRMSAK?!~zPpUEeGgQD", op) == NULL) {
            PyErr_Format(PyExc_ValueError, "unknown field code %c", op);
            goto fail;
        }
        if ((strchr("CK?!~gQ", op) != NULL) != (pg->slots[i] < 0)) {
            PyErr_SetString(PyExc_ValueError, "a slot for every field code but C K ? ! ~ g Q, none for those");
            goto fail;
        }
        if ((op == 'P' || op == 'E') && (i + 1 >= nops || ops[i + 1] != (op == 'P' ? 'p' : 'e'))) {
            PyErr_SetString(PyExc_ValueError, "P is followed by p, E by e");
            goto fail;
        }
        if (op == '?' && (i + 1 >= nops || pg->slots[i + 1] < 0)) {
            PyErr_SetString(PyExc_ValueError, "? is followed by the code of its field");
            goto fail;
        }
        if (op == 'D') {  /* (value, 1 to call it for each record: a default factory) */
            if (!PyTuple_Check(a) || PyTuple_GET_SIZE(a) != 2) {
                PyErr_SetString(PyExc_ValueError, "2 arguments for field code D");
                goto fail;
            }
            pg->obj[i] = Py_NewRef(PyTuple_GET_ITEM(a, 0));
            pg->arg[i] = PyObject_IsTrue(PyTuple_GET_ITEM(a, 1));
            if (pg->arg[i] < 0)
                goto fail;
        } else if (strchr("MSAKPU!~EGgQ", op)) {  /* a tuple of arguments */
            Py_ssize_t want = op == '~' ? 5 : op == '!' ? 4 : op == 'U' || op == 'g' || op == 'Q' || op == 'E' ? 3 : 2;
            if (!PyTuple_Check(a) || PyTuple_GET_SIZE(a) != want) {
                PyErr_Format(PyExc_ValueError, "%zd arguments for field code %c", want, op);
                goto fail;
            }
            PyObject *a0 = PyTuple_GET_ITEM(a, 0), *a1 = PyTuple_GET_ITEM(a, 1);
            if (strchr("MUEGg", op)) {
                Prog *sub = prog_of(module, a0);
                if (sub == NULL)
                    goto fail;
                pg->subref[i] = Py_NewRef(a0);
                pg->sub[i] = sub;
                if (op == 'M') {
                    pg->arg[i] = PyLong_AsSsize_t(a1);
                } else {
                    pg->obj[i] = Py_NewRef(a1);  /* the stop value, or the attribute's name */
                    if (op == 'E' ? !PyUnicode_Check(a1) :
                        !(PyUnicode_Check(a1) && op == 'U') && !(PyLong_Check(a1) && starts_with_u8(sub))) {
                        PyErr_SetString(PyExc_ValueError, "a stop u8 for a program that starts with a u8, "
                                        "or a stop string (U), or an attribute name (E)");
                        goto fail;
                    }
                    if (PyLong_Check(a1)) {
                        pg->arg2[i] = PyLong_AsSsize_t(a1);  /* the stop byte */
                        if (pg->arg2[i] < 0 || pg->arg2[i] > 255) {
                            PyErr_Clear();
                            PyErr_SetString(PyExc_ValueError, "a stop byte is 0 to 255");
                            goto fail;
                        }
                    } else {
                        pg->arg2[i] = -1;
                    }
                    if (op == 'E') {  /* the fields whose emptiness makes the end record, or -1 */
                        PyObject *a2 = PyTuple_GET_ITEM(a, 2);
                        Py_ssize_t nf = PyTuple_Check(a2) ? PyTuple_GET_SIZE(a2) : 1;
                        uint64_t mask = 0;
                        pg->arg[i] = 0;
                        for (Py_ssize_t f = 0; f < nf && !PyErr_Occurred(); f++) {
                            Py_ssize_t at = PyLong_AsSsize_t(PyTuple_Check(a2) ? PyTuple_GET_ITEM(a2, f) : a2);
                            if (PyErr_Occurred())
                                break;
                            if (at == -1 && nf == 1) {
                                pg->arg[i] = -1;
                            } else if (at < 0 || at >= sub->n || sub->slots[at] < 0) {
                                PyErr_SetString(PyExc_ValueError, "E names fields of its program, or -1");
                                goto fail;
                            } else {
                                mask |= (uint64_t)1 << at;
                            }
                        }
                        if (!PyErr_Occurred() && nf < 1) {
                            PyErr_SetString(PyExc_ValueError, "E names fields of its program, or -1");
                            goto fail;
                        }
                        pg->arg2[i] = (Py_ssize_t)mask;
                    }
                    if (op == 'U' || op == 'g') {
                        pg->arg[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(a, 2));  /* limit, G's index */
                        if (op == 'g' && !PyErr_Occurred() && (pg->arg[i] >= i || ops[pg->arg[i]] != 'G')) {
                            PyErr_SetString(PyExc_ValueError, "g names the index of a G before it");
                            goto fail;
                        }
                    }
                }
            } else if (op == 'K' || op == 'Q') {
                pg->arg[i] = PyLong_AsSsize_t(a0);  /* the value, or the most */
                const char *k = PyUnicode_Check(a1) ? PyUnicode_AsUTF8(a1) : NULL;
                if (k == NULL || strlen(k) != 1 || strchr(op == 'K' ? "BHhIi" : "BHI", k[0]) == NULL) {
                    PyErr_Clear();
                    PyErr_SetString(PyExc_ValueError, "a constant's kind is one of B H h I i, a count's B H I");
                    goto fail;
                }
                pg->arg2[i] = k[0];
                if (op == 'Q') {  /* the place of the first list it counts, for the writer */
                    Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(a, 2));
                    long long top = k[0] == 'B' ? 255 : k[0] == 'H' ? 65535 : 4294967295LL;
                    if (!PyErr_Occurred() && (at <= i || at >= nops || pg->arg[i] > top)) {
                        PyErr_SetString(PyExc_ValueError, "Q counts a list after it, at most its kind's largest");
                        goto fail;
                    }
                    pg->arg2[i] |= at << 8;
                }
            } else if (op == '!' || op == '~') {
                pg->arg[i] = PyLong_AsSsize_t(a0);
                pg->obj[i] = Py_NewRef(a1);
                Py_ssize_t neg = PyLong_AsSsize_t(PyTuple_GET_ITEM(a, 2));
                Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(a, 3));
                if (!PyErr_Occurred() && (pg->arg[i] < 0 || pg->arg[i] >= i || n < 1 || i + n >= nops ||
                                          pg->slots[pg->arg[i]] < 0)) {
                    PyErr_SetString(PyExc_ValueError, "! compares a field before it and governs codes after it");
                    goto fail;
                }
                if (op == '~') {  /* the values of the fields it governs when they are not stored */
                    PyObject *dflt = PyTuple_GET_ITEM(a, 4);
                    if (!PyErr_Occurred() && (!PyTuple_Check(dflt) || PyTuple_GET_SIZE(dflt) != n)) {
                        PyErr_SetString(PyExc_ValueError, "~ gives one default per code it governs");
                        goto fail;
                    }
                    for (Py_ssize_t k = 1; !PyErr_Occurred() && k <= n; k++)
                        if (strchr("BHhIisaylj", ops[i + k]) == NULL) {
                            PyErr_SetString(PyExc_ValueError, "~ governs plain fields (B H h I i s a y l j)");
                            goto fail;
                        }
                    pg->subref[i] = Py_NewRef(dflt);  /* (an owned reference, freed with the program) */
                }
                pg->arg2[i] = (neg != 0) | (n << 1);
            } else {  /* S A P: a count, and a limit or column bits */
                pg->arg[i] = PyLong_AsSsize_t(a0);
                pg->arg2[i] = PyLong_AsSsize_t(a1);
            }
            if (PyErr_Occurred())
                goto fail;
            /* (a count of -1 in M and S: the one the last Q or C read) */
            if ((op != 'K' && pg->arg[i] < (strchr("MSAE", op) ? -1 : 0)) || (strchr("SAP", op) && pg->arg2[i] < 0)) {
                PyErr_SetString(PyExc_ValueError, "sizes are not negative");
                goto fail;
            }
            if (op == 'P' && (pg->arg2[i] > 15 || (pg->arg2[i] & 3) == 3 || (pg->arg2[i] & 12) == 12)) {
                PyErr_SetString(PyExc_ValueError, "columns of u8 or i16, bytes only of u8");
                goto fail;
            }
        } else if (strchr("rnNR", op)) {
            Prog *sub = prog_of(module, a);
            if (sub == NULL)
                goto fail;
            pg->subref[i] = Py_NewRef(a);
            pg->sub[i] = sub;
        } else if (strchr("sayljTC", op)) {
            pg->arg[i] = PyLong_AsSsize_t(a);
            if (pg->arg[i] < (strchr("ylj", op) ? -1 : 0)) {  /* y l j: -1 is the last Q's or C's count */
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "sizes are not negative");
                goto fail;
            }
        }
    }
    return capsule;
fail:
    Py_DECREF(capsule);
    return NULL;
}

static PyObject *read_record(Prog *pg, Cursor *c, int depth);
static PyObject *read_fixed(Prog *sub, Cursor *c, Py_ssize_t count, int depth);

/* A list of records of `sub` after a count of `width` bytes. */
static PyObject *
read_counted(Prog *sub, Cursor *c, int width, int depth)
{
    if (!need(c, width))
        return NULL;
    Py_ssize_t n = width == 1 ? rd_u8(c) : rd_u16(c);
    return read_fixed(sub, c, n, depth);
}

/* Records of `sub` up to the end of the bytes read (R); none that reads no byte. */
static PyObject *
read_rest(Prog *sub, Cursor *c, int depth)
{
    PyObject *lst = PyList_New(0);
    if (lst == NULL)
        return NULL;
    while (c->pos < c->end) {
        Py_ssize_t at = c->pos;
        PyObject *rec = read_record(sub, c, depth + 1);
        if (rec == NULL || c->pos == at || PyList_Append(lst, rec) < 0) {
            Py_XDECREF(rec);
            Py_DECREF(lst);
            return NULL;
        }
        Py_DECREF(rec);
    }
    return lst;
}

/* A number of kind B H h I i at c->pos into *out; 0, or -1 past the end. */
static int
rd_num(Cursor *c, char kind, long long *out)
{
    int width = kind == 'B' ? 1 : kind == 'H' || kind == 'h' ? 2 : 4;
    if (!need(c, width))
        return -1;
    const uint8_t *q = c->p + c->pos;
    uint32_t u = q[0];
    if (width > 1)
        u |= (uint32_t)q[1] << 8;
    if (width > 2)
        u |= ((uint32_t)q[2] << 16) | ((uint32_t)q[3] << 24);
    c->pos += width;
    *out = kind == 'h' ? (long long)(int16_t)u : kind == 'i' ? (long long)(int32_t)u : (long long)u;
    return 0;
}

/* `count` strings of at most `limit` bytes, as a list: UTF-8 (S), or Latin-1 (A). */
static PyObject *
read_strs(Cursor *c, Py_ssize_t count, Py_ssize_t limit, int latin1)
{
    if (count > c->end - c->pos)  /* every string is at least its NUL: a count past the end is none of ours */
        return NULL;
    PyObject *lst = PyList_New(count);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *x = latin1 ? rd_latin1(c, limit) : rd_str(c, limit);
        if (x == NULL) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, k, x);
    }
    return lst;
}

/* `count` records of `sub`, as a list. */
static PyObject *
read_fixed(Prog *sub, Cursor *c, Py_ssize_t count, int depth)
{
    if (count > c->end - c->pos)  /* every record is at least a byte: a count past the end is none of ours */
        return NULL;
    PyObject *lst = PyList_New(count);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *rec = read_record(sub, c, depth + 1);
        if (rec == NULL) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, k, rec);
    }
    return lst;
}

/* One column of n values of (bits & 1 ? i16 : u8) taken from an interleaved run of `stride`
   bytes per row, at byte `at` of each row: a list of ints, or (bits & 2) bytes. */
static PyObject *
read_column(Cursor *c, Py_ssize_t n, unsigned bits, Py_ssize_t at, Py_ssize_t stride)
{
    State *st = c->st;
    const uint8_t *q = c->p + c->pos + at;
    if ((bits & 2) && n == 0)
        return cached_bytes(st, q, 0);
    if (bits & 2) {
        uint8_t small[256], *f = n <= 256 ? small : PyMem_Malloc((size_t)(n ? n : 1));
        if (f == NULL)
            return PyErr_NoMemory();
        for (Py_ssize_t k = 0; k < n; k++)
            f[k] = q[k * stride];
        PyObject *b = cached_bytes(st, f, n);
        if (f != small)
            PyMem_Free(f);
        return b;
    }
    PyObject *lst = PyList_New(n);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        const uint8_t *e = q + k * stride;
        PyObject *x = bits & 1 ? INT((int16_t)(e[0] | (e[1] << 8))) : INT(e[0]);
        if (x == NULL) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, k, x);
    }
    return lst;
}

/* Two interleaved columns (P): the first returned, the second in *second. */
static PyObject *
read_columns(Cursor *c, Py_ssize_t n, Py_ssize_t bits, PyObject **second)
{
    Py_ssize_t w1 = bits & 1 ? 2 : 1, w2 = bits & 4 ? 2 : 1;
    if (n > (c->end - c->pos) / (w1 + w2))
        return NULL;
    PyObject *a = read_column(c, n, (unsigned)bits & 3, 0, w1 + w2);
    if (a == NULL)
        return NULL;
    *second = read_column(c, n, ((unsigned)bits >> 2) & 3, w1, w1 + w2);
    if (*second == NULL) {
        Py_DECREF(a);
        return NULL;
    }
    c->pos += n * (w1 + w2);
    return a;
}

/* Is the stop value at c->pos? 1 (read past it), 0 (c->pos unchanged), -1 not ours. */
static int
at_stop(Cursor *c, Py_ssize_t stop_byte, PyObject *stop, Py_ssize_t limit)
{
    if (stop_byte >= 0) {
        if (!need(c, 1))
            return -1;
        if (c->p[c->pos] == stop_byte) {
            c->pos++;
            return 1;
        }
        return 0;
    }
    /* the string's bytes against the stop's UTF-8 (no string made: the record's own read
       decodes it, and refuses what is not UTF-8) */
    Py_ssize_t want;
    const char *u = PyUnicode_AsUTF8AndSize(stop, &want);
    if (u == NULL) {
        PyErr_Clear();
        return -1;
    }
    const uint8_t *s = c->p + c->pos;
    Py_ssize_t room = c->end - c->pos;
    const uint8_t *nul = memchr(s, 0, (size_t)(room < limit + 1 ? room : limit + 1));
    if (nul == NULL)
        return -1;
    if (nul - s == want && memcmp(s, u, (size_t)want) == 0) {
        c->pos += want + 1;
        return 1;
    }
    return 0;
}

/* Records of `sub` until the stop value in place of their first field (U, G, g). */
static PyObject *
read_until(Prog *sub, Cursor *c, Py_ssize_t stop_byte, PyObject *stop, Py_ssize_t limit, int depth)
{
    PyObject *lst = PyList_New(0);
    if (lst == NULL)
        return NULL;
    for (;;) {
        int r = at_stop(c, stop_byte, stop, limit);
        if (r == 1)
            return lst;
        PyObject *rec = r < 0 ? NULL : read_record(sub, c, depth + 1);
        if (rec == NULL || PyList_Append(lst, rec) < 0) {
            Py_XDECREF(rec);
            Py_DECREF(lst);
            return NULL;
        }
        Py_DECREF(rec);
    }
}

/* Is `name` of rec true? 1, 0, or -1 (its property raised: not ours, no exception left). */
static int
attr_true(PyObject *rec, PyObject *name)
{
    PyObject *x = PyObject_GetAttr(rec, name);
    int t = x == NULL ? -1 : PyObject_IsTrue(x);
    Py_XDECREF(x);
    if (t < 0)
        PyErr_Clear();
    return t;
}

/* Is rec the end record of E: all its fields in `mask` (bits of indexes of sub's) empty, or
   (field -1) its attribute `name` true? 1, 0, or -1 (not ours, no exception left). */
static int
is_end(Prog *sub, PyObject *rec, Py_ssize_t field, Py_ssize_t mask, PyObject *name)
{
    if (field < 0)
        return attr_true(rec, name);
    for (Py_ssize_t j = 0; j < sub->n; j++) {
        if (!(((uint64_t)mask >> j) & 1))
            continue;
        PyObject *v = get(sub->slots[j], rec);
        if (v == NULL)
            return -1;
        Py_INCREF(v);  /* (__bool__ of a value a user set may run Python code) */
        int t = PyObject_IsTrue(v);
        Py_DECREF(v);
        if (t < 0) {
            PyErr_Clear();
            return -1;
        }
        if (t)
            return 0;
    }
    return 1;
}

/* Records of `sub` up to the end record (E): the list, the end one in *last. */
static PyObject *
read_terminated(Prog *sub, Cursor *c, Py_ssize_t field, Py_ssize_t mask, PyObject *name, PyObject **last,
                int depth)
{
    PyObject *lst = PyList_New(0);
    if (lst == NULL)
        return NULL;
    for (;;) {
        PyObject *rec = read_record(sub, c, depth + 1);
        int t = rec == NULL ? -1 : is_end(sub, rec, field, mask, name);
        if (t == 1) {
            *last = rec;
            return lst;
        }
        if (t < 0 || PyList_Append(lst, rec) < 0) {
            Py_XDECREF(rec);
            Py_DECREF(lst);
            return NULL;
        }
        Py_DECREF(rec);
    }
}

/* g: the second list's records give their program's fields to the first list's, one by one;
   0, or -1 where the lists differ in length (or in class). */
static int
merge(Prog *sub, PyObject *into, PyObject *from)
{
    Py_ssize_t n = PyList_GET_SIZE(into);
    if (PyList_GET_SIZE(from) != n)
        return -1;
    for (Py_ssize_t k = 0; k < n; k++)
        if (!PyObject_TypeCheck(PyList_GET_ITEM(into, k), sub->type))
            return -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        char *a = (char *)PyList_GET_ITEM(into, k), *b = (char *)PyList_GET_ITEM(from, k);
        for (Py_ssize_t j = 0; j < sub->n; j++) {
            Py_ssize_t off = sub->slots[j];
            if (off < 0 || sub->ops[j] == 'D')  /* (only what the second list stores) */
                continue;
            PyObject **dst = (PyObject **)(a + off), **src = (PyObject **)(b + off);
            Py_XSETREF(*dst, *src);  /* moved: the second list is dropped next */
            *src = NULL;
        }
    }
    return 0;
}

static PyObject *
read_record(Prog *pg, Cursor *c, int depth)
{
    State *st = c->st;
    PyObject *v[PROG_MAX];  /* (set up to i as the codes run: only those are read or freed) */
    PyObject *pending = NULL;  /* the value of the code after this one: P's second column, E's end */
    Py_ssize_t i, kept = 0, skip = 0;
    long long num;
    if (depth > 8)
        return NULL;
    for (i = 0; i < pg->n; i++) {
        Py_ssize_t a = pg->arg[i];
        PyObject *x = NULL;
        if (skip > 0) {  /* a field not stored ("has" byte 0, a condition that does not hold) */
            skip--;
            v[i] = Py_NewRef(Py_None);
            continue;
        }
        switch (pg->ops[i]) {
        case 'B': if (need(c, 1)) x = INT(rd_u8(c)); break;
        case 'H': if (need(c, 2)) x = INT(rd_u16(c)); break;
        case 'h': if (need(c, 2)) x = INT(rd_i16(c)); break;
        case 'I':
        case 'i':
            if (need(c, 4)) {
                const uint8_t *q = c->p + c->pos;
                uint32_t u = (uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) |
                             ((uint32_t)q[3] << 24);
                c->pos += 4;
                x = pg->ops[i] == 'I' ? PyLong_FromUnsignedLong(u) : PyLong_FromLong((int32_t)u);
            }
            break;
        case 's': x = rd_str(c, a); break;
        case 'a': x = rd_latin1(c, a); break;
        case 'y': x = rd_bytes(c, a < 0 ? kept : a); break;
        case 'l': x = rd_i16_list(c, a < 0 ? kept : a); break;
        case 'j': x = rd_i32_list(c, a < 0 ? kept : a); break;
        case 'c': if (need(c, 1)) x = rd_i16_list(c, rd_u8(c)); break;
        case 'T':
            if (need(c, 3 * a) && (x = PyList_New(a)) != NULL) {
                for (Py_ssize_t k = 0; k < a; k++) {
                    int level = rd_i16(c);
                    unsigned flags = rd_u8(c);
                    PyObject *pair = new_pair(st, level, flags);
                    if (pair == NULL) {
                        Py_CLEAR(x);
                        break;
                    }
                    PyList_SET_ITEM(x, k, pair);
                }
            }
            break;
        case 'C':
            if (need(c, 1) && (kept = rd_u8(c)) <= a)
                x = Py_NewRef(Py_None);
            break;
        case 'L': x = rd_i16_list(c, kept); break;
        case 'r': x = read_record(pg->sub[i], c, depth + 1); break;
        case 'n': x = read_counted(pg->sub[i], c, 1, depth); break;
        case 'N': x = read_counted(pg->sub[i], c, 2, depth); break;
        case 'M': x = read_fixed(pg->sub[i], c, a < 0 ? kept : a, depth); break;
        case 'R': x = read_rest(pg->sub[i], c, depth); break;
        case 'S': x = read_strs(c, a < 0 ? kept : a, pg->arg2[i], 0); break;
        case 'A': x = read_strs(c, a < 0 ? kept : a, pg->arg2[i], 1); break;
        case 'Q':
            if (rd_num(c, (char)(pg->arg2[i] & 0xFF), &num) == 0 && num <= a) {
                kept = (Py_ssize_t)num;
                x = Py_NewRef(Py_None);
            }
            break;
        case 'K':
            if (rd_num(c, (char)pg->arg2[i], &num) == 0 && num == a)
                x = Py_NewRef(Py_None);
            break;
        case '?':
            if (need(c, 1) && (num = rd_u8(c)) <= 1) {
                skip = num == 0;
                x = Py_NewRef(Py_None);
            }
            break;
        case '!':
        case '~': {
            int same = PyObject_RichCompareBool(v[a], pg->obj[i], Py_EQ);
            if (same < 0) {
                PyErr_Clear();
                break;
            }
            if (same == (pg->arg2[i] & 1)) {  /* the condition does not hold */
                Py_ssize_t n = pg->arg2[i] >> 1;
                if (pg->ops[i] == '~') {  /* the fields' defaults, and on after them */
                    v[i] = Py_NewRef(Py_None);
                    for (Py_ssize_t k = 1; k <= n; k++)
                        v[i + k] = Py_NewRef(PyTuple_GET_ITEM(pg->subref[i], k - 1));
                    i += n;
                    continue;
                }
                skip = n;
            }
            x = Py_NewRef(Py_None);
            break;
        }
        case 'z': x = Py_NewRef(Py_None); break;
        case 'D':
            x = a ? PyObject_CallNoArgs(pg->obj[i]) : Py_NewRef(pg->obj[i]);
            if (x == NULL)
                PyErr_Clear();  /* (the generated reader calls it again, and says) */
            break;
        case 'P': x = read_columns(c, a, pg->arg2[i], &pending); break;
        case 'E': x = read_terminated(pg->sub[i], c, a, pg->arg2[i], pg->obj[i], &pending, depth); break;
        case 'p':
        case 'e': x = pending; pending = NULL; break;
        case 'U': x = read_until(pg->sub[i], c, pg->arg2[i], pg->obj[i], a, depth); break;
        case 'G': x = read_until(pg->sub[i], c, pg->arg2[i], NULL, 0, depth); break;
        case 'g': {
            PyObject *second = read_until(pg->sub[i], c, pg->arg2[i], NULL, 0, depth);
            if (second == NULL)
                break;
            if (merge(pg->sub[i], v[a], second) == 0)
                x = Py_NewRef(Py_None);
            Py_DECREF(second);
            break;
        }
        }
        if (x == NULL)
            goto fail;
        v[i] = x;
    }
    return fill(pg->type, pg->slots, v, pg->n);
fail:
    Py_XDECREF(pending);
    for (Py_ssize_t k = 0; k < i; k++)
        Py_DECREF(v[k]);
    return NULL;
}

/*
 * read_records(program, data, pos, end, count, stop) -> (list, pos) or None.
 * count >= 0: that many records. count < 0: records up to the one whose first
 * field is `stop`: a string (that string is read, and ends the list), or an int,
 * a u8 (that byte is read, and ends the list). count -2 with a string `stop`: records up
 * to the first whose attribute `stop` is true (an object list's end record), that one
 * included, last (a list whose records are pairs: the caller tells an end record in the
 * place of an object from one in the place of its known copy).
 */
static PyObject *
read_records(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "6 arguments expected");
        return NULL;
    }
    Prog *pg = prog_of(module, args[0]);
    if (pg == NULL)
        return NULL;
    Py_ssize_t pos = PyLong_AsSsize_t(args[2]), end = PyLong_AsSsize_t(args[3]);
    Py_ssize_t count = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *stop = args[5];
    long stop_byte = -1;
    int until_attr = count == -2;
    if (until_attr) {
        if (!PyUnicode_Check(stop)) {
            PyErr_SetString(PyExc_ValueError, "a count of -2 needs the name of the end record's attribute");
            return NULL;
        }
    } else if (count < 0 && PyLong_Check(stop)) {
        stop_byte = PyLong_AsLong(stop);
        if (stop_byte < 0 || stop_byte > 255 || !starts_with_u8(pg)) {
            PyErr_SetString(PyExc_ValueError, "a stop byte needs a program that starts with a u8");
            return NULL;
        }
    } else if (count < 0 && (pg->n == 0 || pg->ops[0] != 's' || !PyUnicode_Check(stop))) {
        PyErr_SetString(PyExc_ValueError, "a stop string needs a program that starts with a string");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Cursor c = {state_of(module), (const uint8_t *)view.buf, pos, end < view.len ? end : view.len};
    PyObject *lst = PyList_New(0), *result = NULL;
    if (lst == NULL || pos < 0 || pos > c.end)
        goto done;
    for (Py_ssize_t k = 0; count < 0 || k < count; k++) {
        if (count < 0 && !until_attr) {
            int r = at_stop(&c, stop_byte, stop, pg->arg[0]);
            if (r < 0)
                goto done;
            if (r == 1)
                break;
        }
        PyObject *rec = read_record(pg, &c, 0);
        if (rec == NULL)
            goto done;
        int err = PyList_Append(lst, rec);
        int end = until_attr && err == 0 ? attr_true(rec, stop) : 0;
        Py_DECREF(rec);
        if (err < 0 || end < 0)
            goto done;
        if (end == 1)
            break;
    }
    result = Py_BuildValue("(On)", lst, c.pos);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(lst);
    if (result == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return result;
}

/* -- writing ------------------------------------------------------------------------------- */
/*
 * The writers: the same programs and object records, from model objects back to
 * bytes (build, and validation's re-encoding). They write only what the Python
 * writers would write the same way; anything else (a value out of range, a list
 * of the wrong size, a string with a NUL, an object of another class) returns
 * None, and the Python writer raises its exact error or writes it itself.
 */
typedef struct {
    State *st;
    char *buf;
    Py_ssize_t len, cap;
} Out;

static int
grow(Out *o, Py_ssize_t n)
{
    if (o->len + n <= o->cap)
        return 0;
    Py_ssize_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + n)
        cap *= 2;
    char *b = PyMem_Realloc(o->buf, (size_t)cap);
    if (b == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->buf = b;
    o->cap = cap;
    return 0;
}

/* 0 written, 1 not this writer's case (no exception), -1 an exception. */
static int
put_raw(Out *o, const void *p, Py_ssize_t n)
{
    if (grow(o, n) < 0)
        return -1;
    memcpy(o->buf + o->len, p, (size_t)n);
    o->len += n;
    return 0;
}

static int
put_int(Out *o, PyObject *v, int size, long lo, long hi)
{
    if (v == NULL || !PyLong_Check(v))
        return 1;
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (overflow || x < lo || x > hi) {
        PyErr_Clear();
        return 1;
    }
    uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
    return put_raw(o, b, size);
}

#define PUT_U8(o, v) put_int(o, v, 1, 0, 255)
#define PUT_U16(o, v) put_int(o, v, 2, 0, 65535)
#define PUT_I16(o, v) put_int(o, v, 2, -32768, 32767)

static int
put_str(Out *o, PyObject *v, Py_ssize_t limit)
{
    /* Exactly str: a subclass (layout.EightBitText, 8-bit text) is written by Python, in its own encoding */
    if (v == NULL || !PyUnicode_CheckExact(v))
        return 1;
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(v, &n);
    if (u == NULL) {
        PyErr_Clear();
        return 1;
    }
    if (n > limit || memchr(u, 0, (size_t)n) != NULL)
        return 1;
    return put_raw(o, u, n + 1);  /* with its NUL */
}

/* Text all of whose characters are Latin-1 (one byte each in CPython's storage, which then
   is the Latin-1 encoding), without NUL, at most `limit` bytes. */
static int
put_latin1(Out *o, PyObject *v, Py_ssize_t limit)
{
    if (v == NULL || !PyUnicode_CheckExact(v) || PyUnicode_KIND(v) != PyUnicode_1BYTE_KIND)
        return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    const char *u = (const char *)PyUnicode_1BYTE_DATA(v);
    if (n > limit || memchr(u, 0, (size_t)n) != NULL)
        return 1;
    if (put_raw(o, u, n) < 0)
        return -1;
    return put_raw(o, "", 1);  /* its NUL */
}

static int
put_bytes(Out *o, PyObject *v, Py_ssize_t n)
{
    if (v == NULL || !PyBytes_CheckExact(v) || PyBytes_GET_SIZE(v) != n)
        return 1;
    return put_raw(o, PyBytes_AS_STRING(v), n);
}

static int
put_i16_list(Out *o, PyObject *v, Py_ssize_t n)
{
    if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != n)
        return 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = PUT_I16(o, PyList_GET_ITEM(v, i));
        if (r)
            return r;
    }
    return 0;
}

static int put_num(Out *o, PyObject *v, char kind);

static int
put_i32_list(Out *o, PyObject *v, Py_ssize_t n)
{
    if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != n)
        return 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = put_num(o, PyList_GET_ITEM(v, i), 'i');
        if (r)
            return r;
    }
    return 0;
}

/* The slots' values of obj, an object of their class (borrowed; NULL where a slot is unset
   or there is none). */
static void
get_all(const Py_ssize_t *slots, PyObject *obj, PyObject **vals, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        vals[i] = slots[i] < 0 ? NULL : get(slots[i], obj);
}

/* Inside a function with `int r` and a `done:` label. */
#define TRY(expr) do { if ((r = (expr)) != 0) goto done; } while (0)

static int write_record(Out *o, Prog *pg, PyObject *obj, int depth);

static int
write_counted(Out *o, Prog *sub, PyObject *lst, int width, int depth)
{
    if (lst == NULL || !PyList_Check(lst))
        return 1;
    Py_ssize_t n = PyList_GET_SIZE(lst);
    if (n > (width == 1 ? 255 : 65535))
        return 1;
    uint8_t b[2] = {(uint8_t)n, (uint8_t)(n >> 8)};
    int r = put_raw(o, b, width);
    for (Py_ssize_t i = 0; i < n && r == 0; i++)
        r = write_record(o, sub, PyList_GET_ITEM(lst, i), depth + 1);
    return r;
}

/* A number of kind B H h I i (1 where it is no int of that kind). */
static int
put_num(Out *o, PyObject *v, char kind)
{
    switch (kind) {
    case 'B': return PUT_U8(o, v);
    case 'H': return PUT_U16(o, v);
    case 'h': return PUT_I16(o, v);
    }
    if (v == NULL || !PyLong_Check(v))
        return 1;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    long long lo = kind == 'I' ? 0 : -2147483648LL;
    long long hi = kind == 'I' ? 4294967295LL : 2147483647LL;
    if (overflow || x < lo || x > hi) {
        PyErr_Clear();
        return 1;
    }
    uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
    return put_raw(o, b, 4);
}

/* The constant of K: `value` as a number of `kind` (it was checked when compiled). */
static int
put_const(Out *o, Py_ssize_t value, char kind)
{
    int width = kind == 'B' ? 1 : kind == 'H' || kind == 'h' ? 2 : 4;
    uint8_t b[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16), (uint8_t)(value >> 24)};
    return put_raw(o, b, width);
}

/* A list of exactly n records of `sub` (M). */
static int
write_fixed(Out *o, Prog *sub, PyObject *lst, Py_ssize_t n, int depth)
{
    if (lst == NULL || !PyList_Check(lst) || PyList_GET_SIZE(lst) != n)
        return 1;
    int r = 0;
    for (Py_ssize_t k = 0; k < n && r == 0; k++)
        r = write_record(o, sub, PyList_GET_ITEM(lst, k), depth + 1);
    return r;
}

/* Two columns of n values interleaved (P): each a list of ints or, u8, bytes. */
static int
write_columns(Out *o, PyObject *a, PyObject *b, Py_ssize_t n, Py_ssize_t bits)
{
    PyObject *col[2] = {a, b};
    for (int j = 0; j < 2; j++) {
        unsigned cb = ((unsigned)bits >> (2 * j)) & 3;
        PyObject *x = col[j];
        if (x == NULL || (cb & 2 ? !PyBytes_CheckExact(x) || PyBytes_GET_SIZE(x) != n
                                 : !PyList_Check(x) || PyList_GET_SIZE(x) != n))
            return 1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        for (int j = 0; j < 2; j++) {
            unsigned cb = ((unsigned)bits >> (2 * j)) & 3;
            int r;
            if (cb & 2)
                r = put_raw(o, PyBytes_AS_STRING(col[j]) + k, 1);
            else
                r = cb & 1 ? PUT_I16(o, PyList_GET_ITEM(col[j], k)) : PUT_U8(o, PyList_GET_ITEM(col[j], k));
            if (r)
                return r;
        }
    }
    return 0;
}

/* Records of `sub`, none with the stop value as its first field, then the stop value (U G g). */
static int
write_until(Out *o, Prog *sub, PyObject *lst, Py_ssize_t stop_byte, PyObject *stop, Py_ssize_t limit,
            int depth)
{
    if (lst == NULL || !PyList_Check(lst))
        return 1;
    PyObject *stop_int = NULL;
    int r = 0;
    if (stop_byte >= 0 && (stop_int = PyLong_FromSsize_t(stop_byte)) == NULL)
        return -1;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(lst) && r == 0; k++) {
        PyObject *rec = PyList_GET_ITEM(lst, k);
        if (!PyObject_TypeCheck(rec, sub->type)) {
            r = 1;
            break;
        }
        if (sub->n > 0 && sub->slots[0] >= 0) {
            PyObject *first = Py_XNewRef(get(sub->slots[0], rec));  /* __eq__ may run Python code */
            int same = first == NULL ? 0 : PyObject_RichCompareBool(first, stop_int ? stop_int : stop, Py_EQ);
            Py_XDECREF(first);
            if (same != 0) {
                r = same < 0 ? -1 : 1;
                break;
            }
        }
        r = write_record(o, sub, rec, depth + 1);
    }
    Py_XDECREF(stop_int);
    if (r == 0) {
        if (stop_byte >= 0) {
            uint8_t b = (uint8_t)stop_byte;
            r = put_raw(o, &b, 1);
        } else {
            r = put_str(o, stop, limit);
        }
    }
    return r;
}

/* E e: the records, none of them an end record, then the end record. */
static int
write_terminated(Out *o, Prog *sub, PyObject *lst, PyObject *last, Py_ssize_t field, Py_ssize_t mask,
                 PyObject *name, int depth)
{
    if (lst == NULL || !PyList_Check(lst) || last == NULL)
        return 1;
    int r = 0;
    Py_INCREF(lst);  /* the property may run any Python code (even change the model) */
    Py_INCREF(last);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(lst) && r == 0; k++) {
        PyObject *rec = PyList_GET_ITEM(lst, k);
        if (!PyObject_TypeCheck(rec, sub->type)) {
            r = 1;
            break;
        }
        Py_INCREF(rec);
        int t = is_end(sub, rec, field, mask, name);
        r = t != 0 ? 1 : write_record(o, sub, rec, depth + 1);
        Py_DECREF(rec);
    }
    if (r == 0)
        r = !PyObject_TypeCheck(last, sub->type) || is_end(sub, last, field, mask, name) != 1 ? 1
            : write_record(o, sub, last, depth + 1);
    Py_DECREF(last);
    Py_DECREF(lst);
    return r;
}

static int
write_record(Out *o, Prog *pg, PyObject *obj, int depth)
{
    PyObject *vals[PROG_MAX];
    Py_ssize_t kept = 0, skip = 0;
    int r = 1, loose = 0;  /* loose: the fields skipped are not stored whatever they hold (~) */
    if (depth > 8 || obj == NULL || !PyObject_TypeCheck(obj, pg->type))
        return 1;
    get_all(pg->slots, obj, vals, pg->n);
    for (Py_ssize_t i = 0; i < pg->n; i++) {
        PyObject *v = vals[i];
        Py_ssize_t a = pg->arg[i];
        if (skip > 0) {  /* not stored: the model holds None (the Python writer says what else) */
            skip--;
            if (v != Py_None && !loose) {
                r = 1;
                goto done;
            }
            continue;
        }
        switch (pg->ops[i]) {
        case 'B': TRY(PUT_U8(o, v)); break;
        case 'H': TRY(PUT_U16(o, v)); break;
        case 'h': TRY(PUT_I16(o, v)); break;
        case 'I':
        case 'i': TRY(put_num(o, v, pg->ops[i])); break;
        case 's': TRY(put_str(o, v, a)); break;
        case 'a': TRY(put_latin1(o, v, a)); break;
        case 'y': TRY(put_bytes(o, v, a < 0 ? kept : a)); break;
        case 'l': TRY(put_i16_list(o, v, a < 0 ? kept : a)); break;
        case 'j': TRY(put_i32_list(o, v, a < 0 ? kept : a)); break;
        case 'c': {
            r = 1;
            if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) > 255)
                goto done;
            uint8_t n = (uint8_t)PyList_GET_SIZE(v);
            TRY(put_raw(o, &n, 1));
            TRY(put_i16_list(o, v, n));
            break;
        }
        case 'T': {
            r = 1;
            if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != a)
                goto done;
            for (Py_ssize_t k = 0; k < a; k++) {
                PyObject *pair = PyList_GET_ITEM(v, k);
                if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                    r = 1;
                    goto done;
                }
                TRY(PUT_I16(o, PyTuple_GET_ITEM(pair, 0)));
                TRY(PUT_U8(o, PyTuple_GET_ITEM(pair, 1)));
            }
            break;
        }
        case 'C': {  /* the length of the next L list */
            Py_ssize_t j = i + 1;
            while (j < pg->n && pg->ops[j] != 'L')
                j++;
            PyObject *lst = j < pg->n ? vals[j] : NULL;
            r = 1;
            if (lst == NULL || !PyList_Check(lst) || PyList_GET_SIZE(lst) > a)
                goto done;
            kept = PyList_GET_SIZE(lst);
            uint8_t n = (uint8_t)kept;
            TRY(put_raw(o, &n, 1));
            break;
        }
        case 'L': TRY(put_i16_list(o, v, kept)); break;
        case 'r': TRY(write_record(o, pg->sub[i], v, depth + 1)); break;
        case 'n': TRY(write_counted(o, pg->sub[i], v, 1, depth)); break;
        case 'N': TRY(write_counted(o, pg->sub[i], v, 2, depth)); break;
        case 'M': TRY(write_fixed(o, pg->sub[i], v, a < 0 ? kept : a, depth)); break;
        case 'R': TRY(write_fixed(o, pg->sub[i], v, v != NULL && PyList_Check(v) ? PyList_GET_SIZE(v) : -1, depth)); break;
        case 'Q': {  /* the length of the list at arg2 >> 8 (every list it counts is checked) */
            PyObject *lst = vals[pg->arg2[i] >> 8];
            r = 1;
            if (lst == NULL || !(PyList_Check(lst) || PyBytes_CheckExact(lst)))
                goto done;
            kept = PyList_Check(lst) ? PyList_GET_SIZE(lst) : PyBytes_GET_SIZE(lst);
            if (kept > a)
                goto done;
            TRY(put_const(o, kept, (char)(pg->arg2[i] & 0xFF)));
            break;
        }
        case 'S':
        case 'A': {
            r = 1;
            if (a < 0)
                a = kept;
            if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != a)
                goto done;
            for (Py_ssize_t k = 0; k < a; k++)
                TRY(pg->ops[i] == 'S' ? put_str(o, PyList_GET_ITEM(v, k), pg->arg2[i])
                                      : put_latin1(o, PyList_GET_ITEM(v, k), pg->arg2[i]));
            break;
        }
        case 'K': TRY(put_const(o, a, (char)pg->arg2[i])); break;
        case '?': {
            PyObject *next = vals[i + 1];  /* (compiled: ? is never last) */
            r = 1;
            if (next == NULL)
                goto done;
            uint8_t has = next != Py_None;
            TRY(put_raw(o, &has, 1));
            skip = !has;
            loose = 0;
            break;
        }
        case '!':
        case '~': {
            Py_ssize_t n = pg->arg2[i] >> 1;
            r = 1;
            if (vals[a] == NULL)
                goto done;
            PyObject *earlier = Py_NewRef(vals[a]);  /* __eq__ may run Python code */
            int same = PyObject_RichCompareBool(earlier, pg->obj[i], Py_EQ);
            Py_DECREF(earlier);
            if (same < 0) {
                r = -1;
                goto done;
            }
            int holds = same != (pg->arg2[i] & 1);
            loose = pg->ops[i] == '~';
            for (Py_ssize_t k = 1; k <= n; k++)  /* ! stored exactly when it holds; ~ when it holds */
                if (vals[i + k] == NULL || (!loose && (vals[i + k] == Py_None) == holds))
                    goto done;
            skip = holds ? 0 : n;
            r = 0;
            break;
        }
        case 'z': if (v != Py_None) { r = 1; goto done; } break;
        case 'P': TRY(write_columns(o, v, vals[i + 1], a, pg->arg2[i])); break;
        case 'p':
        case 'e':
        case 'D': break;
        case 'E': TRY(write_terminated(o, pg->sub[i], v, vals[i + 1], a, pg->arg2[i], pg->obj[i], depth)); break;
        case 'U': TRY(write_until(o, pg->sub[i], v, pg->arg2[i], pg->obj[i], a, depth)); break;
        case 'G': TRY(write_until(o, pg->sub[i], v, pg->arg2[i], NULL, 0, depth)); break;
        case 'g': TRY(write_until(o, pg->sub[i], vals[a], pg->arg2[i], NULL, 0, depth)); break;
        default: r = 1; goto done;
        }
    }
    r = 0;
done:
    return r;
}

/* The bytes of `o` (r == 0), None (r == 1) or NULL (r == -1, an exception); frees the buffer. */
static PyObject *
finish(Out *o, int r)
{
    PyObject *out = NULL;
    if (r == 0)
        out = PyBytes_FromStringAndSize(o->buf ? o->buf : "", o->len);
    else if (r == 1)
        out = Py_NewRef(Py_None);
    PyMem_Free(o->buf);
    return out;
}

/*
 * write_records(program, records, stop=None) -> bytes, or None for the Python writer.
 * `stop`: the value that ends such a list when read back (the first field's), which
 * no record may hold: one that does returns None too.
 */
static PyObject *
write_records(PyObject *module, PyObject *args)
{
    PyObject *capsule, *lst, *stop = Py_None;
    if (!PyArg_ParseTuple(args, "OO!|O", &capsule, &PyList_Type, &lst, &stop))
        return NULL;
    Prog *pg = prog_of(module, capsule);
    if (pg == NULL)
        return NULL;
    Out o = {state_of(module), NULL, 0, 0};
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lst) && r == 0; i++) {
        PyObject *rec = PyList_GET_ITEM(lst, i);
        if (stop != Py_None && pg->n > 0 && pg->slots[0] >= 0 && PyObject_TypeCheck(rec, pg->type)) {
            PyObject *first = Py_XNewRef(get(pg->slots[0], rec));  /* __eq__ may run Python code */
            int same = first == NULL ? 0 : PyObject_RichCompareBool(first, stop, Py_EQ);
            Py_XDECREF(first);
            if (same < 0) {
                r = -1;
                break;
            }
            if (same) {
                r = 1;
                break;
            }
        }
        r = write_record(&o, pg, rec, 0);
    }
    return finish(&o, r);
}

/* -- the module ---------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"record_program", record_program, METH_VARARGS, "Compile a record program for read_records."},
    {"read_records", (PyCFunction)(void (*)(void))read_records, METH_FASTCALL,
     "Records of a program into model objects, or None for the Python reader."},
    {"write_records", write_records, METH_VARARGS, "Records of a program back to bytes, or None."},
    {NULL, NULL, 0, NULL},
};

static int
exec_module(PyObject *m)
{
    State *st = state_of(m);
    for (long v = INT_LO; v <= INT_HI; v++)
        if ((st->ints[v - INT_LO] = PyLong_FromLong(v)) == NULL)
            return -1;
    return PyModule_AddIntConstant(m, "VERSION", SAVECRAFT_NATIVE_VERSION);
}

static int
traverse(PyObject *m, visitproc visit, void *arg)
{
    (void)m, (void)visit, (void)arg;  /* the state holds ints, strings, bytes and pairs of ints: no cycles */
    return 0;
}

static int
clear(PyObject *m)
{
    State *st = state_of(m);
    if (st == NULL)
        return 0;
    for (int i = 0; i < INT_HI - INT_LO + 1; i++)
        Py_CLEAR(st->ints[i]);
    for (int i = 0; i < STR_CACHE; i++) {
        Py_CLEAR(st->str_cache[i]);
        Py_CLEAR(st->bytes_cache[i]);
    }
    for (int i = 0; i < (PAIR_HI - PAIR_LO + 1) * PAIR_FLAGS; i++)
        Py_CLEAR(st->pairs[i]);
    return 0;
}

static void
free_module(void *m)
{
    clear((PyObject *)m);
}

/* Multi-phase initialisation (PEP 489): each module object (one per interpreter) has its
   own state. The caches are changed without a lock and slots are read and written at their
   offsets: the GIL is needed. */
static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "savecraft._native.records",
    "Record programs and Angband object records into model objects and back; "
    "savecraft works without it, only slower.",
    sizeof(State), methods, slots, traverse, clear, free_module,
};

PyMODINIT_FUNC
PyInit_records(void)
{
    return PyModuleDef_Init(&module);
}
