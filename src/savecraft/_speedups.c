/*
 * savecraft._speedups: the few inner loops that cannot be written on whole arrays.
 *
 * TirNanoG's tile RLE is a chain of packets in which each header says where the
 * next one starts, so finding the packets is a sequential walk; in Python it
 * costs ~60 ns a packet, about 4x the whole zlib inflate of a typical map. The
 * functions here only walk and copy: all checking of results and every error
 * message stay in Python (savecraft/formats/tirnanog/rle.py), which also keeps a
 * pure numpy path for machines where this module could not be compiled.
 *
 * The network helpers (xor_repeat, send_datagrams) serve the TirNanoG server's
 * send path: tens of thousands of datagrams a second, each XORed with its
 * session token and sent to its own address. savecraft/net/crypto.py and
 * savecraft/net/sender.py hold the Python equivalents, used when this is absent.
 *
 * Status codes shared by both RLE functions:
 *   0 = whole stream, 1 = the packet at `pos` is cut short by the end of the data,
 *   2 = the packet at `pos` would take the output past `cap` values (its end in `total`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#ifdef __linux__
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#endif

/* rle_count(src) -> (status, pos, total): the number of values a stream holds. */
static PyObject *
rle_count(PyObject *self, PyObject *args)
{
    Py_buffer src;
    if (!PyArg_ParseTuple(args, "y*", &src))
        return NULL;
    const uint8_t *p = (const uint8_t *)src.buf;
    Py_ssize_t n = src.len, pos = 0;
    long long total = 0;
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        uint8_t h = p[pos];
        Py_ssize_t size = (h & 0x80) ? 3 : 2 * (Py_ssize_t)h + 3;
        if (pos + size > n) { status = 1; break; }
        total += (h & 0x7F) + 1;
        pos += size;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    return Py_BuildValue("inL", status, pos, total);
}

/* rle_decode(src, dst) -> (status, pos, filled): values into a writable uint16 buffer. */
static PyObject *
rle_decode(PyObject *self, PyObject *args)
{
    Py_buffer src, dst;
    if (!PyArg_ParseTuple(args, "y*w*", &src, &dst))
        return NULL;
    if (dst.len % 2 != 0) {
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        PyErr_SetString(PyExc_ValueError, "dst must hold whole 16-bit values");
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)src.buf;
    uint16_t *out = (uint16_t *)dst.buf;
    Py_ssize_t n = src.len, cap = dst.len / 2, pos = 0, filled = 0;
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    while (pos < n) {
        uint8_t h = p[pos];
        Py_ssize_t run = (h & 0x7F) + 1;
        if (h & 0x80) {
            if (pos + 3 > n) { status = 1; break; }
            if (filled + run > cap) { status = 2; filled += run; break; }
            uint16_t v = (uint16_t)(p[pos + 1] | (p[pos + 2] << 8));
            uint16_t *o = out + filled;
            for (Py_ssize_t i = 0; i < run; i++)  /* vectorised by the compiler at -O3 */
                o[i] = v;
            pos += 3;
        } else {
            Py_ssize_t size = 2 * run + 1;
            if (pos + size > n) { status = 1; break; }
            if (filled + run > cap) { status = 2; filled += run; break; }
            const uint8_t *q = p + pos + 1;
#if PY_LITTLE_ENDIAN
            memcpy(out + filled, q, (size_t)run * 2);  /* the words are already in host order */
#else
            for (Py_ssize_t i = 0; i < run; i++)
                out[filled + i] = (uint16_t)(q[2 * i] | (q[2 * i + 1] << 8));
#endif
            pos += size;
        }
        filled += run;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    return Py_BuildValue("inn", status, pos, filled);
}


/* xor_repeat(data, key) -> bytes: data XOR the key repeated (the session cipher). */
static PyObject *
xor_repeat(PyObject *self, PyObject *args)
{
    Py_buffer data, key;
    if (!PyArg_ParseTuple(args, "y*y*", &data, &key))
        return NULL;
    PyObject *out = NULL;
    if (key.len == 0) {
        PyErr_SetString(PyExc_ValueError, "the key is empty");
    } else if ((out = PyBytes_FromStringAndSize(NULL, data.len)) != NULL) {
        uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
        const uint8_t *d = (const uint8_t *)data.buf, *k = (const uint8_t *)key.buf;
        for (Py_ssize_t off = 0; off < data.len; off += key.len) {
            Py_ssize_t m = data.len - off < key.len ? data.len - off : key.len;
            for (Py_ssize_t j = 0; j < m; j++)  /* vectorised by the compiler at -O3 */
                o[off + j] = d[off + j] ^ k[j];
        }
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&key);
    return out;
}

#ifdef __linux__
#define SEND_BATCH 256  /* messages per sendmmsg call (the kernel takes at most 1024) */

/* ("host", port) with host an IPv4 or IPv6 literal -> sockaddr. 0, or -1 with an exception. */
static int
to_sockaddr(PyObject *addr, struct sockaddr_storage *sa, socklen_t *len)
{
    if (!PyTuple_Check(addr) || PyTuple_GET_SIZE(addr) < 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(addr, 0)) || !PyLong_Check(PyTuple_GET_ITEM(addr, 1))) {
        PyErr_SetString(PyExc_TypeError, "an address is a (host, port) tuple");
        return -1;
    }
    const char *host = PyUnicode_AsUTF8(PyTuple_GET_ITEM(addr, 0));
    long port = PyLong_AsLong(PyTuple_GET_ITEM(addr, 1));
    if (host == NULL || (port == -1 && PyErr_Occurred()))
        return -1;
    if (port < 0 || port > 65535) {
        PyErr_Format(PyExc_ValueError, "port %ld is not 0 to 65535", port);
        return -1;
    }
    memset(sa, 0, sizeof(*sa));
    struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof(*v4);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*v6);
    } else {
        PyErr_Format(PyExc_ValueError, "not a numeric IP address: %s", host);
        return -1;
    }
    return 0;
}

/*
 * send_datagrams(fd, datagrams, addresses, start) -> (next, errno)
 *
 * Sends datagrams[start:] to the matching addresses with sendmmsg, the GIL
 * released. `next` is the index of the first datagram not sent: len(datagrams)
 * with errno 0 when all went, else the errno that stopped the batch at `next`
 * (EAGAIN: the socket buffer is full; anything else concerns that datagram
 * alone, and the caller may go on from next + 1).
 */
static PyObject *
send_datagrams(PyObject *self, PyObject *args)
{
    int fd;
    PyObject *dgrams, *addrs;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "iOOn", &fd, &dgrams, &addrs, &start))
        return NULL;
    /* tuples: they keep every datagram and address alive while the GIL is released */
    PyObject *ds = PySequence_Tuple(dgrams);
    PyObject *as = ds ? PySequence_Tuple(addrs) : NULL;
    Py_ssize_t n = ds ? PyTuple_GET_SIZE(ds) : 0;
    struct mmsghdr *msgs = NULL;
    struct iovec *iov = NULL;
    struct sockaddr_storage *sas = NULL;
    PyObject *result = NULL;
    if (as == NULL)
        goto done;
    if (PyTuple_GET_SIZE(as) != n) {
        PyErr_SetString(PyExc_ValueError, "as many addresses as datagrams are needed");
        goto done;
    }
    if (start < 0 || start > n) {
        PyErr_SetString(PyExc_ValueError, "start is outside the datagrams");
        goto done;
    }
    Py_ssize_t count = n - start;
    if (count == 0) {
        result = Py_BuildValue("ni", n, 0);
        goto done;
    }
    msgs = PyMem_Calloc((size_t)count, sizeof(*msgs));
    iov = PyMem_Calloc((size_t)count, sizeof(*iov));
    sas = PyMem_Calloc((size_t)count, sizeof(*sas));
    if (msgs == NULL || iov == NULL || sas == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *d = PyTuple_GET_ITEM(ds, start + i);
        if (!PyBytes_Check(d)) {
            PyErr_SetString(PyExc_TypeError, "datagrams are bytes");
            goto done;
        }
        socklen_t len;
        if (to_sockaddr(PyTuple_GET_ITEM(as, start + i), &sas[i], &len) < 0)
            goto done;
        iov[i].iov_base = PyBytes_AS_STRING(d);
        iov[i].iov_len = (size_t)PyBytes_GET_SIZE(d);
        msgs[i].msg_hdr.msg_name = &sas[i];
        msgs[i].msg_hdr.msg_namelen = len;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    Py_ssize_t done_count = 0;
    int err = 0;
    Py_BEGIN_ALLOW_THREADS
    while (done_count < count) {
        unsigned int batch = (unsigned int)(count - done_count < SEND_BATCH ?
                                            count - done_count : SEND_BATCH);
        int r = sendmmsg(fd, msgs + done_count, batch, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        done_count += r;
    }
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("ni", start + done_count, err);
done:
    PyMem_Free(msgs);
    PyMem_Free(iov);
    PyMem_Free(sas);
    Py_XDECREF(ds);
    Py_XDECREF(as);
    return result;
}
#endif


/*
 * Angband 4.2 object records (savecraft/formats/angband/layouts/items.py).
 *
 * A 4.2 save is mostly object records (~700 in a mid-game file): 37 fields,
 * six of them strings, with array sizes set by an earlier block. Read field by
 * field in Python, a record costs ~6 us, most of it building the model object.
 * read_item reads one record straight into a new Item, filling its slots
 * directly (the classes and their slot descriptors are handed over once by
 * item_types). It reads only the common, canonical case: anything else (bytes
 * past the end, a string over the game's buffer or not UTF-8, a "has" byte
 * other than 0 or 1) returns None, and the Python reader, which gives the exact
 * error or the same model, takes over. The pure Python reader
 * (_read_item_fast) must build an equal Item from the same bytes; the tests
 * compare the two.
 */
#include <structmember.h>

#define ITEM_FIELDS 37
#define CURSE_FIELDS 2
#define ITEM_NAME_MAX 127

static PyTypeObject *item_type = NULL, *curse_type = NULL, *list_type = NULL;
static Py_ssize_t item_offsets[ITEM_FIELDS], curse_offsets[CURSE_FIELDS], list_offsets[2];

/* The byte offsets of the object slots that the descriptors in `slots` stand for. */
static int
slot_offsets(PyTypeObject *tp, PyObject *slots, Py_ssize_t *out, Py_ssize_t n)
{
    if (!PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) != n) {
        PyErr_Format(PyExc_ValueError, "%zd slot descriptors expected", n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PyTuple_GET_ITEM(slots, i);
        if (d == Py_None) {  /* a field of the file that is no slot (a count) */
            out[i] = -1;
            continue;
        }
        if (!PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
            PyErr_SetString(PyExc_TypeError, "a slot descriptor expected");
            return -1;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY) ||
            !PyType_IsSubtype(tp, PyDescr_TYPE(d))) {
            PyErr_SetString(PyExc_TypeError, "a writable object slot of the class expected");
            return -1;
        }
        out[i] = m->offset;
    }
    return 0;
}

/* item_types(Item, item_slots, Curse, curse_slots, ItemList, list_slots): the classes built. */
static PyObject *
item_types(PyObject *self, PyObject *args)
{
    PyTypeObject *it, *ct, *lt;
    PyObject *islots, *cslots, *lslots;
    if (!PyArg_ParseTuple(args, "O!OO!OO!O", &PyType_Type, &it, &islots, &PyType_Type, &ct, &cslots,
                          &PyType_Type, &lt, &lslots))
        return NULL;
    if (slot_offsets(it, islots, item_offsets, ITEM_FIELDS) < 0 ||
        slot_offsets(ct, cslots, curse_offsets, CURSE_FIELDS) < 0 ||
        slot_offsets(lt, lslots, list_offsets, 2) < 0)
        return NULL;
    Py_INCREF(it);
    Py_INCREF(ct);
    Py_INCREF(lt);
    Py_XSETREF(item_type, it);
    Py_XSETREF(curse_type, ct);
    Py_XSETREF(list_type, lt);
    Py_RETURN_NONE;
}

/* A new instance of tp with its slots set to vals (references stolen, all of them). */
static PyObject *
fill(PyTypeObject *tp, const Py_ssize_t *offsets, PyObject **vals, Py_ssize_t n)
{
    PyObject *obj = tp->tp_alloc(tp, 0);
    if (obj == NULL) {
        for (Py_ssize_t i = 0; i < n; i++)
            Py_XDECREF(vals[i]);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (offsets[i] < 0)
            Py_DECREF(vals[i]);
        else
            *(PyObject **)((char *)obj + offsets[i]) = vals[i];
    }
    return obj;
}

/* Ints of fields are mostly small: -256..1023 come from a table made once (a reference
 * count increment instead of a call), the rest from PyLong_FromLong. */
#define INT_LO (-256)
#define INT_HI 1023
static PyObject *int_table[INT_HI - INT_LO + 1];

static int
int_table_init(void)
{
    for (long v = INT_LO; v <= INT_HI; v++)
        if ((int_table[v - INT_LO] = PyLong_FromLong(v)) == NULL)
            return -1;
    return 0;
}

static inline PyObject *
new_int(long v)
{
    if (v >= INT_LO && v <= INT_HI)
        return Py_NewRef(int_table[v - INT_LO]);
    return PyLong_FromLong(v);
}

#define INT(expr) (new_int((long)(expr)))

typedef struct {
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

/*
 * Short ASCII strings recur (object kinds, monster races: "Flask of Oil" a
 * hundred times in a save): the last one decoded for each of 512 hash slots is
 * kept and handed out again, saving an allocation and a free per repeat.
 */
#define STR_CACHE 512
#define STR_CACHE_MAX 40
static PyObject *str_cache[STR_CACHE];

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
cached_str(const uint8_t *s, Py_ssize_t n)
{
    PyObject **slot = &str_cache[slot_hash(s, n) % STR_CACHE];
    PyObject *old = *slot;  /* only ASCII strings are kept: equal bytes are then equal text */
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
    PyObject *text = n <= STR_CACHE_MAX ? cached_str(s, n)
                                        : PyUnicode_DecodeUTF8((const char *)s, n, NULL);
    if (text == NULL) {
        PyErr_Clear();
        return NULL;
    }
    c->pos += n + 1;
    return text;
}

/* Short byte strings recur too (flag sets, mostly zeros): the same cache, for bytes. */
static PyObject *bytes_cache[STR_CACHE];

static PyObject *
cached_bytes(const uint8_t *s, Py_ssize_t n)
{
    PyObject *b;
    if (n <= STR_CACHE_MAX) {
        PyObject **slot = &bytes_cache[slot_hash(s, n) % STR_CACHE];
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
    PyObject *b = cached_bytes(c->p + c->pos, n);
    c->pos += n;
    return b;
}

static PyObject *
rd_i16_list(Cursor *c, Py_ssize_t n)
{
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


/*
 * One record at c->pos. Returns the Item, or NULL: with an exception set on a
 * real failure (memory), without one where the Python reader must take over.
 */
static PyObject *
read_one_item(Cursor *c, const Py_ssize_t *sz)
{
    Py_ssize_t of = sz[0], mm = sz[1], bm = sz[2], sm = sz[3], cm = sz[4], em = sz[5];
    PyObject *v[ITEM_FIELDS] = {NULL};
    Py_ssize_t k = 0, start = c->pos;
    unsigned flag;

#define PUT(expr) do { if ((v[k++] = (expr)) == NULL) goto fail; } while (0)
    if (!need(c, 7) || rd_u16(c) != 0xFFFF)
        goto fail;
    PUT(INT(rd_u8(c)));   /* version */
    PUT(INT(rd_u16(c)));  /* oidx */
    PUT(INT(rd_u8(c)));   /* y */
    PUT(INT(rd_u8(c)));   /* x */
    PUT(rd_str(c, ITEM_NAME_MAX));  /* tval */
    PUT(rd_str(c, ITEM_NAME_MAX));  /* sval */
    if (!need(c, 5))
        goto fail;
    PUT(INT(rd_i16(c)));  /* pval */
    PUT(INT(rd_u8(c)));   /* number */
    PUT(INT(rd_i16(c)));  /* weight */
    PUT(rd_str(c, ITEM_NAME_MAX));  /* artifact */
    PUT(rd_str(c, ITEM_NAME_MAX));  /* ego */
    if (!need(c, 15))
        goto fail;
    PUT(INT(rd_u8(c)));   /* effect */
    for (int i = 0; i < 5; i++)
        PUT(INT(rd_i16(c)));  /* timeout, to_h, to_d, to_a, ac */
    for (int i = 0; i < 4; i++)
        PUT(INT(rd_u8(c)));   /* dd, ds, origin, origin_depth */
    PUT(rd_str(c, ITEM_NAME_MAX));  /* origin_race */
    if (!need(c, 1))
        goto fail;
    PUT(INT(rd_u8(c)));   /* notice */
    PUT(rd_bytes(c, of));  /* flags */
    PUT(rd_i16_list(c, mm));  /* modifiers */
    for (int j = 0; j < 2; j++) {  /* brands, slays */
        Py_ssize_t n = j ? sm : bm;
        if (!need(c, 1) || (flag = rd_u8(c)) > 1)
            goto fail;
        if (flag)
            PUT(rd_bytes(c, n));
        else
            PUT(Py_NewRef(Py_None));
    }
    if (!need(c, 1) || (flag = rd_u8(c)) > 1)
        goto fail;
    if (!flag) {
        PUT(Py_NewRef(Py_None));
    } else {
        if (!need(c, 3 * cm))
            goto fail;
        PyObject *lst = PyList_New(cm);
        PUT(lst);
        for (Py_ssize_t i = 0; i < cm; i++) {
            PyObject *cv[CURSE_FIELDS];
            cv[0] = INT(rd_u8(c));
            cv[1] = INT(rd_u16(c));
            if (cv[0] == NULL || cv[1] == NULL) {
                Py_XDECREF(cv[0]);
                Py_XDECREF(cv[1]);
                goto fail;
            }
            PyObject *curse = fill(curse_type, curse_offsets, cv, CURSE_FIELDS);
            if (curse == NULL)
                goto fail;
            PyList_SET_ITEM(lst, i, curse);
        }
    }
    if (!need(c, 3 * em + 12))
        goto fail;
    {
        uint8_t small[256], *f = em <= 256 ? small : PyMem_Malloc((size_t)em);
        PyObject *res = PyList_New(em), *fl = NULL;
        if (res == NULL || f == NULL) {
            Py_XDECREF(res);
            if (f != small && f != NULL)
                PyMem_Free(f);
            goto fail;
        }
        v[k++] = res;
        for (Py_ssize_t i = 0; i < em; i++) {
            PyObject *lvl = INT(rd_i16(c));
            if (lvl == NULL)
                break;
            PyList_SET_ITEM(res, i, lvl);
            f[i] = (uint8_t)rd_u8(c);
        }
        if (!PyErr_Occurred())
            fl = cached_bytes(f, em);
        if (f != small)
            PyMem_Free(f);
        if (fl == NULL)
            goto fail;
        v[k++] = fl;
    }
    PUT(INT(rd_i16(c)));  /* held_m_idx */
    PUT(INT(rd_i16(c)));  /* mimicking_m_idx */
    for (int i = 0; i < 4; i++)
        PUT(INT(rd_u16(c)));  /* activation, time_base, time_dice, time_sides */
    PUT(rd_str(c, ITEM_NAME_MAX));  /* inscription */
#undef PUT
    return fill(item_type, item_offsets, v, ITEM_FIELDS);
fail:
    for (Py_ssize_t i = 0; i < ITEM_FIELDS; i++)
        Py_XDECREF(v[i]);
    c->pos = start;
    return NULL;
}

/* Fast-call arguments: data, pos, end, then the six sizes of the object memory block. */
static int
item_args(PyObject *const *args, Py_ssize_t nargs, Py_buffer *view, Cursor *c, Py_ssize_t *sz,
          Py_ssize_t extra)
{
    if (nargs != 9 + extra) {
        PyErr_Format(PyExc_TypeError, "%zd arguments expected", 9 + extra);
        return -1;
    }
    if (item_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "item_types() was not called");
        return -1;
    }
    Py_ssize_t vals[8];
    for (int i = 0; i < 8; i++) {
        vals[i] = PyLong_AsSsize_t(args[1 + i]);
        if (vals[i] == -1 && PyErr_Occurred())
            return -1;
        if (vals[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "positions and sizes are not negative");
            return -1;
        }
    }
    if (PyObject_GetBuffer(args[0], view, PyBUF_SIMPLE) < 0)
        return -1;
    c->p = (const uint8_t *)view->buf;
    c->pos = vals[0];
    c->end = vals[1] < view->len ? vals[1] : view->len;
    memcpy(sz, vals + 2, 6 * sizeof(Py_ssize_t));
    return 0;
}

/* read_item(data, pos, end, of, mm, bm, sm, cm, em) -> (Item, pos) or None. */
static PyObject *
read_item(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    Cursor c;
    Py_ssize_t sz[6];
    if (item_args(args, nargs, &view, &c, sz, 0) < 0)
        return NULL;
    PyObject *item = read_one_item(&c, sz), *out;
    PyBuffer_Release(&view);
    if (item == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    out = Py_BuildValue("(Nn)", item, c.pos);
    return out;
}


/*
 * Record programs: the other repeated records of a 4.2 save (monster memory,
 * messages, history, monsters, stores) described as a string of field codes,
 * one per slot of the model class, compiled once per class and sizes:
 *
 *   B H h I i   u8 u16 i16 u32 i32, as an int
 *   s           a NUL-terminated UTF-8 string of at most `arg` bytes
 *   y           `arg` bytes
 *   l           a list of `arg` i16
 *   c           a list of i16 after its u8 count
 *   T           a list of `arg` (i16, u8) tuples
 *   C L         a u8 count of at most `arg` (no slot: its descriptor is None), then lists
 *               of that many i16 (each L; the writer checks they are all that long)
 *   j           one object record (an Item), with the program's six sizes
 *   X           an ItemList: object records up to the one without a kind
 *   r           a nested record of the program `arg`
 *   n N         a list of records of the program `arg` after its u8 / u16 count
 *
 * Every code reads the canonical form only (the writer derives each count from
 * the list it writes, with the same width), and anything else makes the whole
 * call return None, so the Python reader takes over for an exact error or the
 * same model.
 */
#define PROG_MAX 64

typedef struct Prog {
    PyTypeObject *type;
    Py_ssize_t n;
    char ops[PROG_MAX];
    Py_ssize_t arg[PROG_MAX];
    struct Prog *sub[PROG_MAX];
    PyObject *subref[PROG_MAX];
    Py_ssize_t offsets[PROG_MAX];
    Py_ssize_t sizes[6];
} Prog;

#define PROG_CAPSULE "savecraft._speedups.Prog"

static void
prog_free(PyObject *capsule)
{
    Prog *pg = PyCapsule_GetPointer(capsule, PROG_CAPSULE);
    if (pg == NULL)
        return;
    Py_XDECREF(pg->type);
    for (Py_ssize_t i = 0; i < pg->n; i++)
        Py_XDECREF(pg->subref[i]);
    PyMem_Free(pg);
}

/* record_program(cls, slots, ops, args, sizes) -> capsule; args: one int or program per op. */
static PyObject *
record_program(PyObject *self, PyObject *args)
{
    PyTypeObject *tp;
    PyObject *slots, *pargs, *sizes;
    const char *ops;
    Py_ssize_t nops;
    if (!PyArg_ParseTuple(args, "O!Os#O!O!", &PyType_Type, &tp, &slots, &ops, &nops,
                          &PyTuple_Type, &pargs, &PyTuple_Type, &sizes))
        return NULL;
    if (nops > PROG_MAX || PyTuple_GET_SIZE(pargs) != nops || PyTuple_GET_SIZE(sizes) != 6) {
        PyErr_SetString(PyExc_ValueError, "one argument per field code, six sizes, at most 64 fields");
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
    pg->n = nops;
    Py_INCREF(tp);
    pg->type = tp;
    if (slot_offsets(tp, slots, pg->offsets, nops) < 0)
        goto fail;
    for (int i = 0; i < 6; i++) {
        pg->sizes[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(sizes, i));
        if (pg->sizes[i] < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "sizes are not negative");
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < nops; i++) {
        PyObject *a = PyTuple_GET_ITEM(pargs, i);
        pg->ops[i] = ops[i];
        if (strchr("BHhIisylTcCLjXrnN", ops[i]) == NULL || ops[i] == 0) {
            PyErr_Format(PyExc_ValueError, "unknown field code %c", ops[i]);
            goto fail;
        }
        if (strchr("rnN", ops[i])) {
            Prog *sub = PyCapsule_GetPointer(a, PROG_CAPSULE);
            if (sub == NULL)
                goto fail;
            Py_INCREF(a);
            pg->subref[i] = a;
            pg->sub[i] = sub;
        } else if (strchr("sylTC", ops[i])) {
            pg->arg[i] = PyLong_AsSsize_t(a);
            if (pg->arg[i] < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "sizes are not negative");
                goto fail;
            }
        }
        if (strchr("jX", ops[i]) && (item_type == NULL || list_type == NULL)) {
            PyErr_SetString(PyExc_RuntimeError, "item_types() was not called");
            goto fail;
        }
    }
    return capsule;
fail:
    Py_DECREF(capsule);
    return NULL;
}

static PyObject *read_record(Prog *pg, Cursor *c, int depth);

/* A list of records of `sub` after a count of `width` bytes. */
static PyObject *
read_counted(Prog *sub, Cursor *c, int width, int depth)
{
    if (!need(c, width))
        return NULL;
    Py_ssize_t n = width == 1 ? rd_u8(c) : rd_u16(c);
    PyObject *lst = PyList_New(n);
    if (lst == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *rec = read_record(sub, c, depth + 1);
        if (rec == NULL) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, i, rec);
    }
    return lst;
}

/* Object records up to the one without a kind (sval ""), as an ItemList. */
static PyObject *
read_item_list_c(Cursor *c, const Py_ssize_t *sizes)
{
    PyObject *items = PyList_New(0);
    if (items == NULL)
        return NULL;
    for (;;) {
        PyObject *it = read_one_item(c, sizes);
        if (it == NULL) {
            Py_DECREF(items);
            return NULL;
        }
        PyObject *sval = *(PyObject **)((char *)it + item_offsets[5]);
        if (PyUnicode_GET_LENGTH(sval) == 0) {
            PyObject *v[2] = {items, it};
            return fill(list_type, list_offsets, v, 2);
        }
        int err = PyList_Append(items, it);
        Py_DECREF(it);
        if (err < 0) {
            Py_DECREF(items);
            return NULL;
        }
    }
}

static PyObject *
read_record(Prog *pg, Cursor *c, int depth)
{
    PyObject *v[PROG_MAX] = {NULL};
    Py_ssize_t i, kept = 0;
    if (depth > 8)
        return NULL;
    for (i = 0; i < pg->n; i++) {
        Py_ssize_t a = pg->arg[i];
        PyObject *x = NULL;
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
        case 'y': x = rd_bytes(c, a); break;
        case 'l': x = rd_i16_list(c, a); break;
        case 'c': if (need(c, 1)) x = rd_i16_list(c, rd_u8(c)); break;
        case 'T':
            if (need(c, 3 * a) && (x = PyList_New(a)) != NULL) {
                for (Py_ssize_t k = 0; k < a; k++) {
                    int level = rd_i16(c);
                    unsigned flags = rd_u8(c);
                    PyObject *pair = Py_BuildValue("(NN)", INT(level), INT(flags));
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
        case 'j': x = read_one_item(c, pg->sizes); break;
        case 'X': x = read_item_list_c(c, pg->sizes); break;
        case 'r': x = read_record(pg->sub[i], c, depth + 1); break;
        case 'n': x = read_counted(pg->sub[i], c, 1, depth); break;
        case 'N': x = read_counted(pg->sub[i], c, 2, depth); break;
        }
        if (x == NULL)
            goto fail;
        v[i] = x;
    }
    return fill(pg->type, pg->offsets, v, pg->n);
fail:
    for (Py_ssize_t k = 0; k < i; k++)
        Py_DECREF(v[k]);
    return NULL;
}

/*
 * read_records(program, data, pos, end, count, stop) -> (list, pos) or None.
 * count >= 0: that many records. count < 0: records up to the one whose first
 * field is `stop`: a string (that string is read, and ends the list), or an int,
 * a u8 (that byte is read, and ends the list).
 */
static PyObject *
read_records(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "6 arguments expected");
        return NULL;
    }
    Prog *pg = PyCapsule_GetPointer(args[0], PROG_CAPSULE);
    if (pg == NULL)
        return NULL;
    Py_ssize_t pos = PyLong_AsSsize_t(args[2]), end = PyLong_AsSsize_t(args[3]);
    Py_ssize_t count = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *stop = args[5];
    long stop_byte = -1;
    if (count < 0 && PyLong_Check(stop)) {
        stop_byte = PyLong_AsLong(stop);
        if (stop_byte < 0 || stop_byte > 255 || pg->n == 0 || pg->ops[0] != 'B') {
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
    Cursor c = {(const uint8_t *)view.buf, pos, end < view.len ? end : view.len};
    PyObject *lst = PyList_New(0), *result = NULL;
    if (lst == NULL || pos < 0 || pos > c.end)
        goto done;
    for (Py_ssize_t k = 0; count < 0 || k < count; k++) {
        if (stop_byte >= 0) {
            if (!need(&c, 1))
                goto done;
            if (c.p[c.pos] == stop_byte) {
                c.pos++;
                break;
            }
        } else if (count < 0) {
            Py_ssize_t at = c.pos;
            PyObject *first = rd_str(&c, pg->arg[0]);
            if (first == NULL)
                goto done;
            int same = PyUnicode_Compare(first, stop) == 0;
            Py_DECREF(first);
            if (same)
                break;
            c.pos = at;
        }
        PyObject *rec = read_record(pg, &c, 0);
        if (rec == NULL)
            goto done;
        int err = PyList_Append(lst, rec);
        Py_DECREF(rec);
        if (err < 0)
            goto done;
    }
    result = Py_BuildValue("(On)", lst, c.pos);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(lst);
    if (result == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return result;
}


/* byte_sum(data) -> int: the unsigned sum of the bytes modulo 2**32 (Angband's block checksum). */
static PyObject *
byte_sum(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const uint8_t *p = (const uint8_t *)view.buf;
    uint64_t total = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < view.len; i++)  /* vectorised by the compiler at -O3 */
        total += p[i];
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong((unsigned long)(total & 0xFFFFFFFFu));
}

/*
 * rle_cover(data, pos, end, cells) -> int: how many (count, byte) pairs from
 * `pos` it takes to cover `cells` squares (an Angband level map layer), or -1
 * when the pairs up to `end` cover fewer.
 */
static PyObject *
rle_cover(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t pos, end, cells;
    if (!PyArg_ParseTuple(args, "y*nnn", &view, &pos, &end, &cells))
        return NULL;
    if (end > view.len)
        end = view.len;
    const uint8_t *p = (const uint8_t *)view.buf;
    Py_ssize_t pairs = -1, done = 0;
    for (Py_ssize_t i = pos; i >= 0 && i + 1 < end && cells > 0; i += 2) {
        done += p[i];
        if (done >= cells) {
            pairs = (i - pos) / 2 + 1;
            break;
        }
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(cells > 0 ? pairs : 0);
}


/*
 * The writers: the same programs and object records, from model objects back to
 * bytes (build, and validation's re-encoding). They write only what the Python
 * writers would write the same way; anything else (a value out of range, a list
 * of the wrong size, a string with a NUL, an object of another class) returns
 * None, and the Python writer raises its exact error or writes it itself.
 */
typedef struct {
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

static inline PyObject *
slot(PyObject *obj, Py_ssize_t offset)
{
    return *(PyObject **)((char *)obj + offset);
}

#define TRY(expr) do { int r_ = (expr); if (r_) return r_; } while (0)

static int
write_one_item(Out *o, PyObject *it, const Py_ssize_t *sz)
{
    Py_ssize_t of = sz[0], mm = sz[1], bm = sz[2], sm = sz[3], cm = sz[4], em = sz[5];
    const Py_ssize_t *f = item_offsets;
    if (it == NULL || !PyObject_TypeCheck(it, item_type))  /* NULL: a slot deleted */
        return 1;
    static const uint8_t mark[2] = {0xFF, 0xFF};
    TRY(put_raw(o, mark, 2));
    TRY(PUT_U8(o, slot(it, f[0])));
    TRY(PUT_U16(o, slot(it, f[1])));
    TRY(PUT_U8(o, slot(it, f[2])));
    TRY(PUT_U8(o, slot(it, f[3])));
    TRY(put_str(o, slot(it, f[4]), ITEM_NAME_MAX));
    TRY(put_str(o, slot(it, f[5]), ITEM_NAME_MAX));
    TRY(PUT_I16(o, slot(it, f[6])));
    TRY(PUT_U8(o, slot(it, f[7])));
    TRY(PUT_I16(o, slot(it, f[8])));
    TRY(put_str(o, slot(it, f[9]), ITEM_NAME_MAX));
    TRY(put_str(o, slot(it, f[10]), ITEM_NAME_MAX));
    TRY(PUT_U8(o, slot(it, f[11])));
    for (int i = 12; i < 17; i++)
        TRY(PUT_I16(o, slot(it, f[i])));
    for (int i = 17; i < 21; i++)
        TRY(PUT_U8(o, slot(it, f[i])));
    TRY(put_str(o, slot(it, f[21]), ITEM_NAME_MAX));
    TRY(PUT_U8(o, slot(it, f[22])));
    TRY(put_bytes(o, slot(it, f[23]), of));
    TRY(put_i16_list(o, slot(it, f[24]), mm));
    for (int j = 0; j < 2; j++) {
        PyObject *v = slot(it, f[25 + j]);
        uint8_t has = v != Py_None;
        TRY(put_raw(o, &has, 1));
        if (has)
            TRY(put_bytes(o, v, j ? sm : bm));
    }
    PyObject *curses = slot(it, f[27]);
    uint8_t has = curses != Py_None;
    TRY(put_raw(o, &has, 1));
    if (has) {
        if (curses == NULL || !PyList_Check(curses) || PyList_GET_SIZE(curses) != cm)
            return 1;
        for (Py_ssize_t i = 0; i < cm; i++) {
            PyObject *c = PyList_GET_ITEM(curses, i);
            if (!PyObject_TypeCheck(c, curse_type))
                return 1;
            TRY(PUT_U8(o, slot(c, curse_offsets[0])));
            TRY(PUT_U16(o, slot(c, curse_offsets[1])));
        }
    }
    PyObject *res = slot(it, f[28]), *fl = slot(it, f[29]);
    if (res == NULL || !PyList_Check(res) || PyList_GET_SIZE(res) != em ||
        fl == NULL || !PyBytes_CheckExact(fl) || PyBytes_GET_SIZE(fl) != em)
        return 1;
    for (Py_ssize_t i = 0; i < em; i++) {
        TRY(PUT_I16(o, PyList_GET_ITEM(res, i)));
        TRY(put_raw(o, PyBytes_AS_STRING(fl) + i, 1));
    }
    TRY(PUT_I16(o, slot(it, f[30])));
    TRY(PUT_I16(o, slot(it, f[31])));
    for (int i = 32; i < 36; i++)
        TRY(PUT_U16(o, slot(it, f[i])));
    TRY(put_str(o, slot(it, f[36]), ITEM_NAME_MAX));
    return 0;
}

/* 1 when `it` is an Item without a kind (the end of a list), 0 when with one, -1 neither. */
static int
is_marker(PyObject *it)
{
    if (it == NULL || !PyObject_TypeCheck(it, item_type))
        return -1;
    PyObject *sval = slot(it, item_offsets[5]);
    if (sval == NULL || !PyUnicode_Check(sval))
        return -1;
    return PyUnicode_GET_LENGTH(sval) == 0;
}

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
    TRY(put_raw(o, b, width));
    for (Py_ssize_t i = 0; i < n; i++)
        TRY(write_record(o, sub, PyList_GET_ITEM(lst, i), depth + 1));
    return 0;
}

static int
write_record(Out *o, Prog *pg, PyObject *obj, int depth)
{
    Py_ssize_t kept = 0;
    if (depth > 8 || obj == NULL || !PyObject_TypeCheck(obj, pg->type))
        return 1;
    for (Py_ssize_t i = 0; i < pg->n; i++) {
        PyObject *v = pg->offsets[i] < 0 ? NULL : slot(obj, pg->offsets[i]);
        Py_ssize_t a = pg->arg[i];
        switch (pg->ops[i]) {
        case 'B': TRY(PUT_U8(o, v)); break;
        case 'H': TRY(PUT_U16(o, v)); break;
        case 'h': TRY(PUT_I16(o, v)); break;
        case 'I':
        case 'i': {
            if (v == NULL || !PyLong_Check(v))
                return 1;
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            long long lo = pg->ops[i] == 'I' ? 0 : -2147483648LL;
            long long hi = pg->ops[i] == 'I' ? 4294967295LL : 2147483647LL;
            if (overflow || x < lo || x > hi) {
                PyErr_Clear();
                return 1;
            }
            uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
            TRY(put_raw(o, b, 4));
            break;
        }
        case 's': TRY(put_str(o, v, a)); break;
        case 'y': TRY(put_bytes(o, v, a)); break;
        case 'l': TRY(put_i16_list(o, v, a)); break;
        case 'c': {
            if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) > 255)
                return 1;
            uint8_t n = (uint8_t)PyList_GET_SIZE(v);
            TRY(put_raw(o, &n, 1));
            TRY(put_i16_list(o, v, n));
            break;
        }
        case 'T': {
            if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != a)
                return 1;
            for (Py_ssize_t k = 0; k < a; k++) {
                PyObject *pair = PyList_GET_ITEM(v, k);
                if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2)
                    return 1;
                TRY(PUT_I16(o, PyTuple_GET_ITEM(pair, 0)));
                TRY(PUT_U8(o, PyTuple_GET_ITEM(pair, 1)));
            }
            break;
        }
        case 'C': {  /* the length of the next L list */
            Py_ssize_t j = i + 1;
            while (j < pg->n && pg->ops[j] != 'L')
                j++;
            PyObject *lst = j < pg->n ? slot(obj, pg->offsets[j]) : NULL;
            if (lst == NULL || !PyList_Check(lst) || PyList_GET_SIZE(lst) > a)
                return 1;
            kept = PyList_GET_SIZE(lst);
            uint8_t n = (uint8_t)kept;
            TRY(put_raw(o, &n, 1));
            break;
        }
        case 'L': TRY(put_i16_list(o, v, kept)); break;
        case 'j': TRY(write_one_item(o, v, pg->sizes)); break;
        case 'X': {
            if (v == NULL || !PyObject_TypeCheck(v, list_type))
                return 1;
            PyObject *items = slot(v, list_offsets[0]), *end = slot(v, list_offsets[1]);
            if (items == NULL || !PyList_Check(items) || end == NULL || is_marker(end) != 1)
                return 1;
            for (Py_ssize_t k = 0; k < PyList_GET_SIZE(items); k++) {
                PyObject *it = PyList_GET_ITEM(items, k);
                if (is_marker(it) != 0)
                    return 1;
                TRY(write_one_item(o, it, pg->sizes));
            }
            TRY(write_one_item(o, end, pg->sizes));
            break;
        }
        case 'r': TRY(write_record(o, pg->sub[i], v, depth + 1)); break;
        case 'n': TRY(write_counted(o, pg->sub[i], v, 1, depth)); break;
        case 'N': TRY(write_counted(o, pg->sub[i], v, 2, depth)); break;
        default: return 1;
        }
    }
    return 0;
}

/*
 * write_records(program, records, stop=None) -> bytes, or None for the Python writer.
 * `stop`: the value that ends such a list when read back (the first field's), which
 * no record may hold: one that does returns None too.
 */
static PyObject *
write_records(PyObject *self, PyObject *args)
{
    PyObject *capsule, *lst, *stop = Py_None;
    if (!PyArg_ParseTuple(args, "OO!|O", &capsule, &PyList_Type, &lst, &stop))
        return NULL;
    Prog *pg = PyCapsule_GetPointer(capsule, PROG_CAPSULE);
    if (pg == NULL)
        return NULL;
    Out o = {NULL, 0, 0};
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lst) && r == 0; i++) {
        PyObject *rec = PyList_GET_ITEM(lst, i);
        if (stop != Py_None && pg->n > 0 && PyObject_TypeCheck(rec, pg->type)) {
            PyObject *first = slot(rec, pg->offsets[0]);
            int same = first == NULL ? 0 : PyObject_RichCompareBool(first, stop, Py_EQ);
            if (same < 0) {
                PyMem_Free(o.buf);
                return NULL;
            }
            if (same) {
                r = 1;
                break;
            }
        }
        r = write_record(&o, pg, rec, 0);
    }
    PyObject *out = NULL;
    if (r == 0)
        out = PyBytes_FromStringAndSize(o.buf ? o.buf : "", o.len);
    else if (r == 1)
        out = Py_NewRef(Py_None);
    PyMem_Free(o.buf);
    return out;
}

/* write_item(item, of, mm, bm, sm, cm, em) -> bytes, or None for the Python writer. */
static PyObject *
write_item(PyObject *self, PyObject *args)
{
    PyObject *it;
    Py_ssize_t sz[6];
    if (!PyArg_ParseTuple(args, "Onnnnnn", &it, &sz[0], &sz[1], &sz[2], &sz[3], &sz[4], &sz[5]))
        return NULL;
    if (item_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "item_types() was not called");
        return NULL;
    }
    Out o = {NULL, 0, 0};
    int r = write_one_item(&o, it, sz);
    PyObject *out = NULL;
    if (r == 0)
        out = PyBytes_FromStringAndSize(o.buf, o.len);
    else if (r == 1)
        out = Py_NewRef(Py_None);
    PyMem_Free(o.buf);
    return out;
}

static PyMethodDef methods[] = {
    {"rle_count", rle_count, METH_VARARGS, "Count the values of a TirNanoG RLE stream."},
    {"rle_decode", rle_decode, METH_VARARGS, "Decode a TirNanoG RLE stream into a uint16 buffer."},
    {"xor_repeat", xor_repeat, METH_VARARGS, "XOR data with a key repeated over it."},
    {"item_types", item_types, METH_VARARGS, "The Item and Curse classes read_item builds."},
    {"read_item", (PyCFunction)(void (*)(void))read_item, METH_FASTCALL,
     "One Angband 4.2 object record into an Item, or None for the Python reader."},
    {"write_records", write_records, METH_VARARGS, "Records of a program back to bytes, or None."},
    {"write_item", write_item, METH_VARARGS, "An Item back to its object record, or None."},
    {"byte_sum", byte_sum, METH_O, "The unsigned sum of the bytes modulo 2**32."},
    {"rle_cover", rle_cover, METH_VARARGS, "The (count, byte) pairs that cover a number of cells."},
    {"record_program", record_program, METH_VARARGS, "Compile a record program for read_records."},
    {"read_records", (PyCFunction)(void (*)(void))read_records, METH_FASTCALL,
     "Records of a program into model objects, or None for the Python reader."},
#ifdef __linux__
    {"send_datagrams", send_datagrams, METH_VARARGS,
     "Send datagrams to their addresses with sendmmsg, the GIL released."},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "savecraft._speedups",
    "Compiled inner loops; savecraft works without them, only slower.", -1, methods,
};

/* The interface version: savecraft.compiled refuses a build whose number differs from its
   own (a stale build would otherwise run a silent mix of old and new code). Bump it with any
   change of a function's signature or behaviour. */
#define SPEEDUPS_VERSION 2

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (int_table_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "VERSION", SPEEDUPS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
